/// @file
/// Atomic file replacement: a file is written beside its target as
/// "<path>.tmp", flushed to disk, and renamed over the target, so a crash,
/// a full disk or kill -9 at any moment leaves either the old file or the
/// new one, never a torn one.
///
/// @code
///   camber::write_file_atomically("out/history.csv", [&](std::ostream& out) {
///     out << "design,cd\n" << 0 << ',' << cd << '\n';
///   });
///   // A library that writes the file itself (HDF5, VTK, protobuf):
///   const auto tmp = camber::temporary_path("out/model.h5");
///   write_with_the_library(tmp);
///   camber::commit_file(tmp, "out/model.h5");
///   // Read, change and replace without losing a concurrent writer's change:
///   camber::FileLock lock("tokens.txt");
///   std::string text = read("tokens.txt") + line;
///   camber::write_file_atomically("tokens.txt", text);
/// @endcode
///
/// commit_file fsyncs the file's data, renames it (atomic on POSIX file
/// systems) and fsyncs the directory, so the new name survives a power
/// failure too. One process writes a file through write_file_atomically or
/// copy_file_atomically, into a temporary name of its own, so processes
/// writing the same target at once each replace it whole (the last rename
/// wins); a read-change-replace cycle that must not lose another writer's
/// change holds a FileLock around it. A file that every rank writes (MPI-IO,
/// parallel HDF5) goes to temporary_path(), the same name on every rank,
/// and is committed by commit_file_collective. Failures throw camber::Error
/// naming the file and the system's reason.
#pragma once

#include <mpi.h>

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace camber {

/// "<path>.tmp": where a file that every rank writes together is written
/// before it replaces `path` (the same name on every rank).
std::filesystem::path temporary_path(const std::filesystem::path& path);

/// "<path>.<pid>-<random>.tmp": a temporary name of this process's own,
/// for a file one process writes.
std::filesystem::path unique_temporary_path(const std::filesystem::path& path);

/// Creates the directory that will hold `file` (and its parents), if missing.
void create_parent_directories(const std::filesystem::path& file);

/// Makes the finished file `written` the file `path`: fsync of its data,
/// its permissions set to `mode` if given, rename over `path`, fsync of the
/// directory.
void commit_file(const std::filesystem::path& written, const std::filesystem::path& path,
                 std::optional<std::filesystem::perms> mode = std::nullopt);

/// commit_file of a file that every rank of `comm` wrote (and closed):
/// rank 0 commits it, and every rank returns, or throws the same error.
/// Collective.
void commit_file_collective(const std::filesystem::path& written,
                            const std::filesystem::path& path, MPI_Comm comm);

/// Writes what `write` puts into the stream to `path` atomically
/// (unique_temporary_path, then commit_file with `mode`), creating the
/// parent directories. A stream error (disk full) or an exception from
/// `write` leaves `path` as it was, removes the temporary file and
/// propagates.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write,
                           std::optional<std::filesystem::perms> mode = std::nullopt);

/// Writes `text` to `path` atomically (with `mode`, if given).
void write_file_atomically(const std::filesystem::path& path, const std::string& text,
                           std::optional<std::filesystem::perms> mode = std::nullopt);

/// Copies the file `from` to `to` atomically (a unique temporary name,
/// then commit_file with `mode`), creating the parent directories. A
/// failure leaves `to` as it was and removes the temporary file.
void copy_file_atomically(const std::filesystem::path& from, const std::filesystem::path& to,
                          std::optional<std::filesystem::perms> mode = std::nullopt);

/// An exclusive advisory lock (flock) on "<path>.lock", created if missing,
/// held for the object's life: the writers of `path` that read it, change
/// it and replace it hold one around all three, so that concurrent
/// changes are made one after another instead of one being lost. Blocks
/// until the lock is free.
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace camber
