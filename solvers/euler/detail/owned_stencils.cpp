#include "owned_stencils.hpp"

#include <petscmat.h>

#include <algorithm>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/solvers/petsc/petsc_numbering.hpp>

namespace camber::solvers::euler::detail {

namespace {

// The rank owning index b of a layout with these ranges.
size_t owner_of(const std::vector<PetscInt>& ranges, PetscInt b) {
  return static_cast<size_t>(std::upper_bound(ranges.begin(), ranges.end(), b) - ranges.begin() - 1);
}

// The colours of `keys` (indices of a layout with `ranges`) from the ranks
// that own them, which hold `owned` (their range's colours): ask, answer
// in the order asked. Collective.
template <class Key>
std::vector<int> colours_from_owners(const std::vector<Key>& keys,
                                     const std::vector<PetscInt>& ranges,
                                     const std::vector<int>& owned, MPI_Comm comm) {
  int rank = 0, size = 1;
  CAMBER_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CAMBER_CHECK_MPI(MPI_Comm_size(comm, &size));
  const PetscInt first = ranges[static_cast<size_t>(rank)];
  std::vector<std::vector<std::int64_t>> ask(static_cast<size_t>(size));
  std::vector<size_t> home(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    home[i] = owner_of(ranges, static_cast<PetscInt>(keys[i]));
    ask[home[i]].push_back(static_cast<std::int64_t>(keys[i]));
  }
  std::vector<std::int64_t> from;
  const std::vector<std::int64_t> asked = par::exchange(ask, comm, &from);
  std::vector<std::vector<std::int64_t>> answer(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    for (std::int64_t i = from[static_cast<size_t>(r)]; i < from[static_cast<size_t>(r) + 1]; ++i)
      answer[static_cast<size_t>(r)].push_back(
          owned[static_cast<size_t>(asked[static_cast<size_t>(i)] - first)]);
  const std::vector<std::int64_t> got = par::exchange(answer, comm);
  std::vector<size_t> at(static_cast<size_t>(size) + 1, 0), next(static_cast<size_t>(size), 0);
  for (int r = 0; r < size; ++r)
    at[static_cast<size_t>(r) + 1] = at[static_cast<size_t>(r)] + ask[static_cast<size_t>(r)].size();
  std::vector<int> c(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) c[i] = static_cast<int>(got[at[home[i]] + next[home[i]]++]);
  return c;
}

// PETSc's parallel greedy colouring of the rows of the square matrix g at
// distance 1 or 2: the colour of every owned row, and the number of
// colours over all ranks. Collective.
std::vector<int> greedy_colours(Mat g, int distance, int& n_colors) {
  MatColoring mc = nullptr;
  ISColoring coloring = nullptr;
  CAMBER_CHECK_PETSC(MatColoringCreate(g, &mc));
  CAMBER_CHECK_PETSC(MatColoringSetType(mc, MATCOLORINGGREEDY));
  CAMBER_CHECK_PETSC(MatColoringSetDistance(mc, distance));
  CAMBER_CHECK_PETSC(MatColoringApply(mc, &coloring));
  PetscInt n_local = 0, n = 0;
  const ISColoringValue* colors = nullptr;
  CAMBER_CHECK_PETSC(ISColoringGetColors(coloring, &n_local, &n, &colors));
  std::vector<int> owned(colors, colors + n_local);
  CAMBER_CHECK_PETSC(ISColoringDestroy(&coloring));
  CAMBER_CHECK_PETSC(MatColoringDestroy(&mc));
  int top = 0;
  for (const int k : owned) top = std::max(top, k + 1);
  MPI_Comm comm = MPI_COMM_NULL;
  CAMBER_CHECK_PETSC(PetscObjectGetComm(reinterpret_cast<PetscObject>(g), &comm));
  n_colors = par::allreduce_max(top, comm);
  return owned;
}

// An AIJ matrix of ones at (first + c, col) for the columns of every owned
// row c (CSR), with n_cols global columns. Collective.
petsc::MatHandle pattern_matrix(MPI_Comm comm, PetscInt first, PetscInt n_rows, PetscInt n_global_rows,
                                PetscInt n_cols, const std::vector<PetscInt>& col_ranges,
                                const std::vector<std::int64_t>& offset,
                                const std::vector<PetscInt>& cols) {
  int rank = 0;
  CAMBER_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  const PetscInt c0 = col_ranges[static_cast<size_t>(rank)];
  const PetscInt nc = col_ranges[static_cast<size_t>(rank) + 1] - c0;
  std::vector<PetscInt> d_nnz(static_cast<size_t>(n_rows), 0), o_nnz(static_cast<size_t>(n_rows), 0);
  for (PetscInt r = 0; r < n_rows; ++r)
    for (std::int64_t a = offset[static_cast<size_t>(r)]; a < offset[static_cast<size_t>(r) + 1]; ++a) {
      const PetscInt j = cols[static_cast<size_t>(a)];
      ++(j >= c0 && j < c0 + nc ? d_nnz : o_nnz)[static_cast<size_t>(r)];
    }
  petsc::MatHandle g;
  CAMBER_CHECK_PETSC(MatCreateAIJ(comm, n_rows, nc, n_global_rows, n_cols, 0, d_nnz.data(), 0,
                                  o_nnz.data(), g.out()));
  std::vector<PetscScalar> ones;
  for (PetscInt r = 0; r < n_rows; ++r) {
    const std::int64_t a0 = offset[static_cast<size_t>(r)], a1 = offset[static_cast<size_t>(r) + 1];
    ones.assign(static_cast<size_t>(a1 - a0), 1.0);
    const PetscInt row = first + r;
    CAMBER_CHECK_PETSC(MatSetValues(g.get(), 1, &row, static_cast<PetscInt>(a1 - a0),
                                    cols.data() + a0, ones.data(), INSERT_VALUES));
  }
  CAMBER_CHECK_PETSC(MatAssemblyBegin(g.get(), MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(g.get(), MAT_FINAL_ASSEMBLY));
  return g;
}

// M(c) of an owned cell c: c and, at second order, its reconstruction
// neighbours (local ids).
class ReconstructionCells {
 public:
  explicit ReconstructionCells(const Discretization& disc)
      : second_(disc.spatial().order == 2),
        off_(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                 disc.reconstruction().neighbor_offset())),
        cell_(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                  disc.reconstruction().neighbor_cell())) {}
  template <class F>
  void each(index_t c, const F& f) const {
    f(c);
    if (!second_) return;
    for (index_t a = off_(c); a < off_(c + 1); ++a) f(cell_(a));
  }

 private:
  bool second_;
  Kokkos::View<index_t*, Kokkos::HostSpace> off_, cell_;
};

// For every owned cell c, the columns cols(c) (from `columns`) sent with
// each row of {c} and c's face neighbours to the row's owner: returns the
// (row block, column) pairs this rank's rows received. Collective.
template <class Columns>
std::vector<std::int64_t> post_to_rows(const Discretization& disc, const CellLayout& s,
                                       const Columns& columns) {
  const index_t n_owned = disc.n_owned();
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  std::vector<std::vector<index_t>> nbr(static_cast<size_t>(n_owned));
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    const index_t l = left(f), r = right(f);
    if (r < 0) continue;
    if (l < n_owned) nbr[static_cast<size_t>(l)].push_back(r);
    if (r < n_owned) nbr[static_cast<size_t>(r)].push_back(l);
  }
  std::vector<std::vector<std::int64_t>> send(static_cast<size_t>(disc.mesh().size()));
  std::vector<std::int64_t> cols;
  for (index_t c = 0; c < n_owned; ++c) {
    cols.clear();
    columns(c, cols);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    const auto post = [&](index_t row) {
      const PetscInt b = s.block[static_cast<size_t>(row)];
      auto& to = send[owner_of(s.ranges, b)];
      for (const std::int64_t col : cols) {
        to.push_back(b);
        to.push_back(col);
      }
    };
    post(c);
    for (const index_t q : nbr[static_cast<size_t>(c)]) post(q);
  }
  return par::exchange(send, disc.mesh().comm());
}

// The received (row, column) pairs as sorted, unique columns per owned row
// (CSR).
void rows_of(const std::vector<std::int64_t>& got, PetscInt first, index_t n_owned,
             std::vector<std::int64_t>& offset, std::vector<std::int64_t>& column) {
  std::vector<std::vector<std::int64_t>> rows(static_cast<size_t>(n_owned));
  for (size_t i = 0; i < got.size(); i += 2)
    rows[static_cast<size_t>(got[i] - first)].push_back(got[i + 1]);
  offset.assign(static_cast<size_t>(n_owned) + 1, 0);
  column.clear();
  for (index_t c = 0; c < n_owned; ++c) {
    auto& r = rows[static_cast<size_t>(c)];
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    column.insert(column.end(), r.begin(), r.end());
    offset[static_cast<size_t>(c) + 1] = static_cast<std::int64_t>(column.size());
  }
}

}  // namespace

CellLayout cell_layout(const Discretization& disc) {
  const mesh::DistributedMesh& dm = disc.mesh();
  const int size = dm.size();
  CellLayout l;
  l.block = petsc::petsc_cell_numbers(dm);
  std::vector<std::int64_t> counts(static_cast<size_t>(size));
  const std::int64_t mine = disc.n_owned();
  CAMBER_CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, dm.comm()));
  l.ranges.assign(static_cast<size_t>(size) + 1, 0);
  for (int r = 0; r < size; ++r)
    l.ranges[static_cast<size_t>(r) + 1] =
        l.ranges[static_cast<size_t>(r)] + static_cast<PetscInt>(counts[static_cast<size_t>(r)]);
  return l;
}

OwnedStencils owned_stencils(const Discretization& disc) {
  const mesh::DistributedMesh& dm = disc.mesh();
  const index_t n_owned = disc.n_owned();
  OwnedStencils s;
  static_cast<CellLayout&>(s) = cell_layout(disc);

  const ReconstructionCells m(disc);
  const std::vector<std::int64_t> got =
      post_to_rows(disc, s, [&](index_t c, std::vector<std::int64_t>& cols) {
        m.each(c, [&](index_t q) { cols.push_back(s.block[static_cast<size_t>(q)]); });
      });
  // Owned blocks are numbered in local order (petsc_numbering).
  std::vector<std::int64_t> column;
  rows_of(got, s.ranges[static_cast<size_t>(dm.rank())], n_owned, s.offset, column);
  s.column.assign(column.begin(), column.end());
  return s;
}

ColumnColouring colour_columns(const OwnedStencils& s, MPI_Comm comm) {
  int rank = 0;
  CAMBER_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  const PetscInt first = s.ranges[static_cast<size_t>(rank)];
  const PetscInt n_owned = s.ranges[static_cast<size_t>(rank) + 1] - first;
  const PetscInt n_global = s.ranges.back();
  // The pattern (one entry per cell pair), symmetrized.
  petsc::MatHandle g =
      pattern_matrix(comm, first, n_owned, n_global, n_global, s.ranges, s.offset, s.column);
  petsc::MatHandle gt;
  CAMBER_CHECK_PETSC(MatTranspose(g.get(), MAT_INITIAL_MATRIX, gt.out()));
  CAMBER_CHECK_PETSC(MatAXPY(g.get(), 1.0, gt.get(), DIFFERENT_NONZERO_PATTERN));
  ColumnColouring out;
  const std::vector<int> owned = greedy_colours(g.get(), 2, out.n_colors);
  CAMBER_REQUIRE(static_cast<PetscInt>(owned.size()) == n_owned,
                 "colour_columns: PETSc coloured " << owned.size() << " rows, expected " << n_owned);
  // The colours of the local cells and of the stencils' columns, from
  // their owners.
  out.local = colours_from_owners(s.block, s.ranges, owned, comm);
  out.column = colours_from_owners(s.column, s.ranges, owned, comm);
  return out;
}

NodeColouring colour_nodes(const Discretization& disc, const CellLayout& s) {
  const mesh::DistributedMesh& dm = disc.mesh();
  const MPI_Comm comm = dm.comm();
  const int size = dm.size(), rank = dm.rank();
  const index_t n_owned = disc.n_owned();
  const auto& node_gid = dm.node_global_ids();
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().cell_offsets());
  const auto cn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().cell_nodes());
  const ReconstructionCells m(disc);
  const std::vector<std::int64_t> got =
      post_to_rows(disc, s, [&](index_t c, std::vector<std::int64_t>& cols) {
        m.each(c, [&](index_t q) {
          for (index_t a = off(q); a < off(q + 1); ++a)
            cols.push_back(node_gid[static_cast<size_t>(cn(a))]);
        });
      });
  NodeColouring out;
  rows_of(got, s.ranges[static_cast<size_t>(rank)], n_owned, out.offset, out.node);

  // Nodes in equal ranges of global ids; B: owned cells x global nodes.
  const std::int64_t n_nodes = dm.n_global_nodes();
  std::vector<PetscInt> node_ranges(static_cast<size_t>(size) + 1);
  for (int r = 0; r <= size; ++r)
    node_ranges[static_cast<size_t>(r)] = static_cast<PetscInt>(n_nodes * r / size);
  const std::vector<PetscInt> cols(out.node.begin(), out.node.end());
  petsc::MatHandle b = pattern_matrix(comm, s.ranges[static_cast<size_t>(rank)], n_owned,
                                      s.ranges.back(), static_cast<PetscInt>(n_nodes), node_ranges,
                                      out.offset, cols);
  petsc::MatHandle btb;
  CAMBER_CHECK_PETSC(MatTransposeMatMult(b.get(), b.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, btb.out()));
  const std::vector<int> owned = greedy_colours(btb.get(), 1, out.n_colors);
  out.local = colours_from_owners(node_gid, node_ranges, owned, comm);
  out.column = colours_from_owners(out.node, node_ranges, owned, comm);
  return out;
}

}  // namespace camber::solvers::euler::detail
