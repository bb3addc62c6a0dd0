#include "global_cells.hpp"

#include <algorithm>

#include <camber/core/error.hpp>
#include <camber/solvers/petsc/petsc_numbering.hpp>

namespace camber::solvers::euler::detail {

GlobalCells gather_global_cells(const Discretization& disc) {
  const mesh::DistributedMesh& dm = disc.mesh();
  const MPI_Comm comm = dm.comm();
  const index_t n_owned = disc.n_owned();
  const auto& gid = dm.cell_global_ids();
  const auto& node_gid = dm.node_global_ids();
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  std::vector<std::vector<std::int64_t>> nbr(static_cast<size_t>(n_owned));
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    const index_t l = left(f), r = right(f);
    if (r < 0) continue;
    if (l < n_owned) nbr[static_cast<size_t>(l)].push_back(gid[static_cast<size_t>(r)]);
    if (r < n_owned) nbr[static_cast<size_t>(r)].push_back(gid[static_cast<size_t>(l)]);
  }
  const auto cell_offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().cell_offsets());
  const auto cell_nodes =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().cell_nodes());
  // Per owned cell: global id, PETSc block, neighbour count, neighbours,
  // node count, nodes (global ids).
  const std::vector<PetscInt> blocks = petsc::petsc_cell_numbers(dm);
  std::vector<std::int64_t> mine;
  for (index_t c = 0; c < n_owned; ++c) {
    const auto& n = nbr[static_cast<size_t>(c)];
    mine.push_back(gid[static_cast<size_t>(c)]);
    mine.push_back(blocks[static_cast<size_t>(c)]);
    mine.push_back(static_cast<std::int64_t>(n.size()));
    mine.insert(mine.end(), n.begin(), n.end());
    mine.push_back(cell_offsets(c + 1) - cell_offsets(c));
    for (index_t a = cell_offsets(c); a < cell_offsets(c + 1); ++a)
      mine.push_back(node_gid[static_cast<size_t>(cell_nodes(a))]);
  }
  int size = 1;
  CAMBER_CHECK_MPI(MPI_Comm_size(comm, &size));
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size), 0);
  CAMBER_CHECK_MPI(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
  for (int r = 1; r < size; ++r) displs[static_cast<size_t>(r)] = displs[r - 1] + counts[r - 1];
  std::vector<std::int64_t> all(static_cast<size_t>(displs.back() + counts.back()));
  CAMBER_CHECK_MPI(MPI_Allgatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(),
                                  displs.data(), MPI_INT64_T, comm));

  const std::int64_t n_global = dm.n_global_cells();
  GlobalCells g;
  g.n_nodes = dm.n_global_nodes();
  g.offset.assign(static_cast<size_t>(n_global) + 1, 0);
  g.node_offset.assign(static_cast<size_t>(n_global) + 1, 0);
  g.block.assign(static_cast<size_t>(n_global), -1);
  // Where each cell's record starts in `all`.
  std::vector<size_t> at(static_cast<size_t>(n_global), 0);
  for (size_t i = 0; i < all.size();) {
    const std::int64_t id = all[i], deg = all[i + 2];
    const std::int64_t n_nodes = all[i + 3 + static_cast<size_t>(deg)];
    g.block[static_cast<size_t>(id)] = static_cast<PetscInt>(all[i + 1]);
    g.offset[static_cast<size_t>(id) + 1] = deg;
    g.node_offset[static_cast<size_t>(id) + 1] = n_nodes;
    at[static_cast<size_t>(id)] = i;
    i += 4 + static_cast<size_t>(deg + n_nodes);
  }
  for (std::int64_t c = 0; c < n_global; ++c) {
    g.offset[c + 1] += g.offset[c];
    g.node_offset[c + 1] += g.node_offset[c];
  }
  g.neighbor.resize(static_cast<size_t>(g.offset.back()));
  g.node.resize(static_cast<size_t>(g.node_offset.back()));
  for (std::int64_t c = 0; c < n_global; ++c) {
    const size_t i = at[static_cast<size_t>(c)];
    const std::int64_t deg = g.offset[c + 1] - g.offset[c];
    const std::int64_t n_nodes = g.node_offset[c + 1] - g.node_offset[c];
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(i + 3),
              all.begin() + static_cast<std::ptrdiff_t>(i + 3 + static_cast<size_t>(deg)),
              g.neighbor.begin() + g.offset[c]);
    const size_t n0 = i + 4 + static_cast<size_t>(deg);
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(n0),
              all.begin() + static_cast<std::ptrdiff_t>(n0 + static_cast<size_t>(n_nodes)),
              g.node.begin() + g.node_offset[c]);
  }
  return g;
}

void distance_two_stencils(const GlobalCells& g, std::vector<std::int64_t>& offset,
                           std::vector<std::int64_t>& stencil) {
  const std::int64_t n = static_cast<std::int64_t>(g.block.size());
  offset.assign(static_cast<size_t>(n) + 1, 0);
  stencil.clear();
  std::vector<std::int64_t> s;
  for (std::int64_t c = 0; c < n; ++c) {
    s.assign(1, c);
    for (std::int64_t a = g.offset[c]; a < g.offset[c + 1]; ++a) {
      const std::int64_t nb = g.neighbor[static_cast<size_t>(a)];
      s.push_back(nb);
      for (std::int64_t b = g.offset[nb]; b < g.offset[nb + 1]; ++b)
        s.push_back(g.neighbor[static_cast<size_t>(b)]);
    }
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    stencil.insert(stencil.end(), s.begin(), s.end());
    offset[static_cast<size_t>(c) + 1] = static_cast<std::int64_t>(stencil.size());
  }
}

}  // namespace camber::solvers::euler::detail
