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
/// @endcode
///
/// commit_file fsyncs the file's data, renames it (atomic on POSIX file
/// systems) and fsyncs the directory, so the new name survives a power
/// failure too. Nothing here is collective: under MPI one rank writes
/// (see io::H5File for files written by every rank). Failures throw
/// camber::Error naming the file and the system's reason.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

namespace camber {

/// "<path>.tmp": where a file is written before it replaces `path`.
std::filesystem::path temporary_path(const std::filesystem::path& path);

/// Creates the directory that will hold `file` (and its parents), if missing.
void create_parent_directories(const std::filesystem::path& file);

/// Makes the finished file `written` the file `path`: fsync of its data,
/// rename over `path`, fsync of the directory.
void commit_file(const std::filesystem::path& written, const std::filesystem::path& path);

/// Writes what `write` puts into the stream to `path` atomically
/// (temporary_path, then commit_file), creating the parent directories.
/// A stream error (disk full) or an exception from `write` leaves `path`
/// as it was, removes the temporary file and propagates.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

/// Writes `text` to `path` atomically.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace camber
