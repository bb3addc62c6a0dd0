// Internal to Camber::io (not installed): file-system helpers shared by the
// HDF5 and VTK writers: rank-0 work with an agreed outcome. Atomic
// replacement is the core's (camber/core/atomic_file.hpp).
#pragma once

#include <mpi.h>

#include <filesystem>
#include <functional>
#include <string>

namespace camber::io::detail {

// `text` with the five XML special characters as entities (&amp; &lt; &gt;
// &quot; &apos;), for attribute values and element text.
std::string xml_escape(const std::string& text);

// Runs `body` on rank 0 of `comm`; every rank returns once rank 0 is done,
// and if rank 0 threw, every rank throws the same camber::Error (through
// camber::collective_guard). Collective.
void on_rank0(MPI_Comm comm, const std::function<void()>& body);

}  // namespace camber::io::detail
