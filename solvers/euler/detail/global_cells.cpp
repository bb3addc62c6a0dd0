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
  g.dim = disc.dim();
  g.stencil = disc.spatial().order == 2 ? disc.spatial().gradient_stencil : GradientStencil::faces;
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

void node_cells(const GlobalCells& g, std::vector<std::int64_t>& offset,
                std::vector<std::int64_t>& cells) {
  offset.assign(static_cast<size_t>(g.n_nodes) + 1, 0);
  for (std::int64_t a : g.node) ++offset[static_cast<size_t>(a) + 1];
  for (size_t a = 1; a < offset.size(); ++a) offset[a] += offset[a - 1];
  cells.resize(static_cast<size_t>(offset.back()));
  std::vector<std::int64_t> fill(offset.begin(), offset.end() - 1);
  const std::int64_t n = static_cast<std::int64_t>(g.block.size());
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t a = g.node_offset[c]; a < g.node_offset[c + 1]; ++a)
      cells[static_cast<size_t>(fill[static_cast<size_t>(g.node[static_cast<size_t>(a)])]++)] = c;
}

void distance_two_stencils(const GlobalCells& g, std::vector<std::int64_t>& offset,
                           std::vector<std::int64_t>& stencil) {
  const std::int64_t n = static_cast<std::int64_t>(g.block.size());
  // The reconstruction's neighbours of every cell: the face neighbours, or
  // the cells sharing a node.
  std::vector<std::int64_t> r_off, r;
  const bool any_nodes = g.stencil != GradientStencil::faces;
  if (any_nodes) {
    std::vector<std::int64_t> nc_off, nc;
    node_cells(g, nc_off, nc);
    r_off.assign(1, 0);
    std::vector<std::int64_t> s;
    for (std::int64_t c = 0; c < n; ++c) {
      s.clear();
      if (!uses_node_stencil(g.stencil, g.dim,
                             static_cast<index_t>(g.node_offset[c + 1] - g.node_offset[c]))) {
        r.insert(r.end(), g.neighbor.begin() + g.offset[c], g.neighbor.begin() + g.offset[c + 1]);
        r_off.push_back(static_cast<std::int64_t>(r.size()));
        continue;
      }
      for (std::int64_t a = g.node_offset[c]; a < g.node_offset[c + 1]; ++a) {
        const size_t node = static_cast<size_t>(g.node[static_cast<size_t>(a)]);
        for (std::int64_t b = nc_off[node]; b < nc_off[node + 1]; ++b)
          if (nc[static_cast<size_t>(b)] != c) s.push_back(nc[static_cast<size_t>(b)]);
      }
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
      r.insert(r.end(), s.begin(), s.end());
      r_off.push_back(static_cast<std::int64_t>(r.size()));
    }
  }
  const std::vector<std::int64_t>& ro = any_nodes ? r_off : g.offset;
  const std::vector<std::int64_t>& rn = any_nodes ? r : g.neighbor;

  offset.assign(static_cast<size_t>(n) + 1, 0);
  stencil.clear();
  std::vector<std::int64_t> s;
  for (std::int64_t c = 0; c < n; ++c) {
    // R_c: the fluxes through c's faces, from the reconstructed states of c
    // and of its face neighbours, each from its reconstruction neighbours.
    s.assign(1, c);
    s.insert(s.end(), rn.begin() + ro[c], rn.begin() + ro[c + 1]);
    for (std::int64_t a = g.offset[c]; a < g.offset[c + 1]; ++a) {
      const std::int64_t nb = g.neighbor[static_cast<size_t>(a)];
      s.push_back(nb);
      s.insert(s.end(), rn.begin() + ro[nb], rn.begin() + ro[nb + 1]);
    }
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    stencil.insert(stencil.end(), s.begin(), s.end());
    offset[static_cast<size_t>(c) + 1] = static_cast<std::int64_t>(stencil.size());
  }
}

void transpose_stencils(const std::vector<std::int64_t>& offset,
                        const std::vector<std::int64_t>& stencil,
                        std::vector<std::int64_t>& t_offset, std::vector<std::int64_t>& t_stencil) {
  const size_t n = offset.size() - 1;
  t_offset.assign(n + 1, 0);
  for (std::int64_t j : stencil) ++t_offset[static_cast<size_t>(j) + 1];
  for (size_t c = 0; c < n; ++c) t_offset[c + 1] += t_offset[c];
  t_stencil.resize(stencil.size());
  std::vector<std::int64_t> fill(t_offset.begin(), t_offset.end() - 1);
  // Rows in ascending order, so every transposed row comes out sorted.
  for (size_t c = 0; c < n; ++c)
    for (std::int64_t a = offset[c]; a < offset[c + 1]; ++a)
      t_stencil[static_cast<size_t>(fill[static_cast<size_t>(stencil[static_cast<size_t>(a)])]++)] =
          static_cast<std::int64_t>(c);
}

}  // namespace camber::solvers::euler::detail
