// Internal to Camber::io (not installed): file-system helpers shared by the
// HDF5 and VTK writers — directories, atomic replacement, rank-0 work with
// an agreed outcome.
#pragma once

#include <mpi.h>

#include <filesystem>
#include <functional>
#include <string>

namespace camber::io::detail {

// "<path>.tmp": where a file is written before it replaces `path`.
std::filesystem::path temporary_path(const std::filesystem::path& path);

// Creates the directory that will hold `file` (and its parents), if missing.
void create_parent_directories(const std::filesystem::path& file);

// Renames `from` to `to`, replacing `to` atomically (POSIX rename).
void replace_file(const std::filesystem::path& from,
                  const std::filesystem::path& to);

// Writes `text` to "<path>.tmp", then renames it to `path`.
void write_text_atomically(const std::filesystem::path& path,
                           const std::string& text);

// Runs `body` on rank 0 of `comm`; every rank returns once rank 0 is done,
// and if rank 0 threw, every rank throws the same camber::Error (through
// camber::collective_guard). Collective.
void on_rank0(MPI_Comm comm, const std::function<void()>& body);

}  // namespace camber::io::detail
