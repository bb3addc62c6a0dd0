#include <camber/solvers/euler/exact_jacobian.hpp>

#include <algorithm>
#include <cstdint>

#include <camber/core/error.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_numbering.hpp>

#include "detail/discretization_kernels.hpp"
#include "detail/owned_stencils.hpp"

namespace camber::solvers::euler {

namespace {

constexpr int max_nv = 5;  // the most conserved variables per cell (3-D)

// A host array of PETSc's as a View the default execution space reaches
// (the array itself on a host backend, a device copy otherwise).
struct DeviceArray {
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host;
  Kokkos::View<double*> device;
  DeviceArray(double* data, size_t n) : host(data, n) {
    device = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space{}, host);
  }
  void copy_back() const { Kokkos::deep_copy(host, device); }
};

// The diagonal and off-diagonal parts of A (A itself and none on one
// process).
std::pair<Mat, Mat> local_parts(Mat A, const PetscInt** garray) {
  PetscBool mpi = PETSC_FALSE;
  CAMBER_CHECK_PETSC(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(A), MATMPIBAIJ, &mpi));
  *garray = nullptr;
  if (!mpi) return {A, nullptr};
  Mat ad = nullptr, ao = nullptr;
  CAMBER_CHECK_PETSC(MatMPIBAIJGetSeqBAIJ(A, &ad, &ao, garray));
  return {ad, ao};
}

}  // namespace

std::shared_ptr<const ExactJacobian::Pattern> ExactJacobian::pattern(const Discretization& disc) {
  auto p = std::make_shared<Pattern>();
  p->stencil =
      disc.spatial().order == 2 ? disc.spatial().gradient_stencil : GradientStencil::faces;
  p->n_owned = disc.n_owned();
  p->n_local = disc.n_local();
  const detail::OwnedStencils s = detail::owned_stencils(disc);
  const detail::ColumnColouring colours = detail::colour_columns(s, disc.mesh().comm());
  p->n_colors = colours.n_colors;
  p->color = colours.local;
  p->block = s.block;

  // Blocks of the owned rows, by colour, and the preallocation.
  p->entries.assign(static_cast<size_t>(p->n_colors), {});
  const PetscInt first = s.ranges[static_cast<size_t>(disc.mesh().rank())];
  p->d_nnz.assign(static_cast<size_t>(p->n_owned), 0);
  p->o_nnz = p->d_nnz;
  long long blocks = 0;
  for (index_t c = 0; c < p->n_owned; ++c)
    for (std::int64_t a = s.offset[static_cast<size_t>(c)]; a < s.offset[static_cast<size_t>(c) + 1]; ++a) {
      const PetscInt col = s.column[static_cast<size_t>(a)];
      p->entries[static_cast<size_t>(colours.column[static_cast<size_t>(a)])].push_back({c, col});
      ++(col >= first && col < first + p->n_owned ? p->d_nnz : p->o_nnz)[static_cast<size_t>(c)];
      ++blocks;
    }
  CAMBER_CHECK_MPI(
      MPI_Allreduce(&blocks, &p->n_blocks, 1, MPI_LONG_LONG, MPI_SUM, disc.mesh().comm()));
  return p;
}

bool ExactJacobianPattern::fits(const Discretization& disc) const {
  const GradientStencil s =
      disc.spatial().order == 2 ? disc.spatial().gradient_stencil : GradientStencil::faces;
  return s == stencil && disc.n_owned() == n_owned && disc.n_local() == n_local;
}

ExactJacobian::ExactJacobian(const Discretization& disc, std::shared_ptr<const Pattern> pattern)
    : comm_(disc.mesh().comm()),
      nv_(disc.n_vars()),
      n_owned_(disc.n_owned()),
      n_local_(disc.n_local()),
      pattern_(pattern && pattern->fits(disc) ? std::move(pattern) : ExactJacobian::pattern(disc)) {
  const Pattern& p = *pattern_;
  const int nv = nv_;
  n_colors_ = p.n_colors;
  n_blocks_ = p.n_blocks;
  color_ = Kokkos::View<int*>("euler::jacobian_color", static_cast<size_t>(n_local_));
  auto ch = Kokkos::create_mirror_view(color_);
  for (index_t c = 0; c < n_local_; ++c) ch(c) = p.color[static_cast<size_t>(c)];
  Kokkos::deep_copy(color_, ch);

  CAMBER_CHECK_PETSC(MatCreate(comm_, matrix_.out()));
  CAMBER_CHECK_PETSC(MatSetSizes(matrix_.get(), nv * n_owned_, nv * n_owned_, PETSC_DETERMINE,
                                 PETSC_DETERMINE));
  CAMBER_CHECK_PETSC(MatSetType(matrix_.get(), MATBAIJ));
  CAMBER_CHECK_PETSC(MatSetBlockSize(matrix_.get(), nv));
  CAMBER_CHECK_PETSC(MatXAIJSetPreallocation(matrix_.get(), nv, p.d_nnz.data(), p.o_nnz.data(),
                                             nullptr, nullptr));
  CAMBER_CHECK_PETSC(MatSetOption(matrix_.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));

  // The structure, once (every block of the pattern, zero), so that
  // assemble() adds into PETSc's value arrays in place.
  Mat A = matrix_.get();
  const PetscScalar zero[max_nv * max_nv] = {};
  for (const auto& colour : p.entries)
    for (const auto& [c, col] : colour) {
      const PetscInt row = p.block[static_cast<size_t>(c)];
      CAMBER_CHECK_PETSC(MatSetValuesBlocked(A, 1, &row, 1, &col, zero, INSERT_VALUES));
    }
  CAMBER_CHECK_PETSC(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  auto t = std::make_shared<detail::StencilTarget>();
  PetscInt first = 0;
  CAMBER_CHECK_PETSC(MatGetOwnershipRange(A, &first, nullptr));
  first /= nv;
  const PetscInt* garray = nullptr;
  const auto [ad, ao] = local_parts(A, &garray);
  PetscInt n_garray = 0;
  for (int part = 0; part < 2; ++part) {
    Mat m = part == 0 ? ad : ao;
    const PetscInt *ia = nullptr, *ja = nullptr;
    PetscInt n = 0;
    PetscBool done = PETSC_FALSE;
    std::vector<index_t> offset(static_cast<size_t>(n_owned_) + 1, 0), columns;
    if (m) {
      CAMBER_CHECK_PETSC(MatGetRowIJ(m, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
      CAMBER_REQUIRE(done && n == n_owned_, "ExactJacobian: PETSc gave no block rows of part "
                                                 << part << " (" << n << " of " << n_owned_ << ")");
      offset.assign(ia, ia + n + 1);
      columns.assign(ja, ja + ia[n]);
      CAMBER_CHECK_PETSC(MatRestoreRowIJ(m, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
    }
    if (part == 1 && m) {
      PetscInt rows = 0, cols = 0;
      CAMBER_CHECK_PETSC(MatGetLocalSize(m, &rows, &cols));
      n_garray = cols / nv;
    }
    t->offset[part] = detail::to_device(offset, "euler::jacobian_offset");
    t->columns[part] = detail::to_device(columns, "euler::jacobian_columns");
  }
  std::vector<index_t> row(static_cast<size_t>(n_owned_)), column(static_cast<size_t>(n_local_));
  for (index_t c = 0; c < n_owned_; ++c) row[static_cast<size_t>(c)] = p.block[static_cast<size_t>(c)] - first;
  for (index_t c = 0; c < n_local_; ++c) {
    const PetscInt b = p.block[static_cast<size_t>(c)];
    if (b >= first && b < first + n_owned_) {
      column[static_cast<size_t>(c)] = b - first;
      continue;
    }
    const PetscInt* k = garray ? std::lower_bound(garray, garray + n_garray, b) : nullptr;
    // A column no owned row holds: looked up, it is found missing.
    column[static_cast<size_t>(c)] =
        -1 - (k && k != garray + n_garray && *k == b ? k - garray : n_garray);
  }
  t->row = detail::to_device(row, "euler::jacobian_row");
  t->column = detail::to_device(column, "euler::jacobian_column");
  target_ = std::move(t);
}

void ExactJacobian::check_assembly(const Discretization& disc, const std::vector<double>* shift,
                                   const char* who) const {
  CAMBER_REQUIRE(disc.n_owned() == n_owned_ && disc.n_local() == n_local_ &&
                     disc.n_vars() == nv_,
                 "ExactJacobian::" << who << ": the discretization has " << disc.n_owned()
                                   << " owned cells of " << disc.n_vars()
                                   << " variables, the Jacobian was built for " << n_owned_
                                   << " of " << nv_);
  CAMBER_REQUIRE(shift == nullptr || static_cast<index_t>(shift->size()) == n_owned_,
                 "ExactJacobian::" << who << ": shift has " << shift->size()
                                   << " values, expected " << n_owned_);
}

void ExactJacobian::assemble(const Discretization& disc, Tensor& U,
                             const std::vector<double>* shift) {
  check_assembly(disc, shift, "assemble");
  const int nv = nv_;
  Mat A = matrix_.get();
  CAMBER_CHECK_PETSC(MatZeroEntries(A));
  // The owned rows' blocks are added in PETSc's arrays by the kernel; the
  // rows of ghost cells go to their owners (PETSc's stash, ADD_VALUES).
  const PetscInt* garray = nullptr;
  const auto [ad, ao] = local_parts(A, &garray);
  detail::StencilTarget t = *target_;
  PetscScalar* values[2] = {nullptr, nullptr};
  std::vector<DeviceArray> arrays;
  for (int part = 0; part < 2; ++part) {
    Mat m = part == 0 ? ad : ao;
    if (!m) continue;
    CAMBER_CHECK_PETSC(MatSeqBAIJGetArray(m, &values[part]));
    arrays.emplace_back(values[part], t.columns[part].extent(0) * static_cast<size_t>(nv * nv));
    t.value[part] = arrays.back().device;
  }
  if (shift) t.shift = detail::to_device(*shift, "euler::jacobian_shift");
  std::vector<PetscInt> cols;
  std::vector<PetscScalar> row_values;
  detail::DiscretizationKernels::jacobian_by_stencil(disc, U, t, [&](index_t row, index_t n,
                                                                      const index_t* local_cols,
                                                                      const double* blocks) {
    cols.resize(static_cast<size_t>(n));
    for (index_t i = 0; i < n; ++i)
      cols[static_cast<size_t>(i)] = pattern_->block[static_cast<size_t>(local_cols[i])];
    const PetscInt r = pattern_->block[static_cast<size_t>(row)];
    // MatSetValuesBlocked takes the blocks of one row as a row-major
    // (nv x nv n) array: block i's row a is entries a nv n + nv i ...
    row_values.resize(static_cast<size_t>(n * nv * nv));
    for (index_t i = 0; i < n; ++i)
      for (int a = 0; a < nv; ++a)
        for (int e = 0; e < nv; ++e)
          row_values[static_cast<size_t>(a * nv * n + nv * i + e)] = blocks[(i * nv + a) * nv + e];
    CAMBER_CHECK_PETSC(MatSetValuesBlocked(A, 1, &r, static_cast<PetscInt>(n), cols.data(),
                                           row_values.data(), ADD_VALUES));
  });
  for (const DeviceArray& array : arrays) array.copy_back();
  for (int part = 0; part < 2; ++part)
    if (values[part]) CAMBER_CHECK_PETSC(MatSeqBAIJRestoreArray(part == 0 ? ad : ao, &values[part]));
  CAMBER_CHECK_PETSC(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
}

void ExactJacobian::assemble_by_colouring(const Discretization& disc, Tensor& U,
                                          const std::vector<double>* shift) {
  check_assembly(disc, shift, "assemble_by_colouring");
  const int nv = nv_;
  Mat A = matrix_.get();
  CAMBER_CHECK_PETSC(MatZeroEntries(A));
  Kokkos::View<int*> seeded("euler::jacobian_seeded", static_cast<size_t>(n_local_));
  const auto color = color_;
  Tensor R, D;
  for (int k = 0; k < n_colors_; ++k) {
    Kokkos::parallel_for(
        "euler::jacobian_seed", Kokkos::RangePolicy<>(0, n_local_),
        KOKKOS_LAMBDA(const index_t c) { seeded(c) = color(c) == k ? 1 : 0; });
    detail::DiscretizationKernels::residual_block_columns(disc, U, seeded, R, D);
    const auto dh = D.host();
    for (const auto& [c, col] : pattern_->entries[static_cast<size_t>(k)]) {
      const PetscInt row = pattern_->block[static_cast<size_t>(c)];
      PetscScalar b[max_nv * max_nv];
      std::copy(&dh(c * nv * nv), &dh(c * nv * nv) + nv * nv, b);
      // Every block is inserted once (PETSc does not mix insert and add
      // between assemblies): the shift goes into the diagonal block here.
      if (shift && col == row)
        for (int i = 0; i < nv; ++i) b[i * nv + i] += (*shift)[static_cast<size_t>(c)];
      CAMBER_CHECK_PETSC(MatSetValuesBlocked(A, 1, &row, 1, &col, b, INSERT_VALUES));
    }
  }
  CAMBER_CHECK_PETSC(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
}

Tensor ExactJacobian::objective_gradient(const Discretization& disc, const Tensor& U,
                                         const std::array<double, 3>& weights) const {
  return objective_gradients(disc, U, {weights}).front();
}

std::vector<Tensor> ExactJacobian::objective_gradients(
    const Discretization& disc, const Tensor& U,
    const std::vector<std::array<double, 3>>& weights) const {
  return objective_gradients(force_partials(disc, U), weights);
}

ExactJacobian::ForcePartials ExactJacobian::force_partials(const Discretization& disc,
                                                           const Tensor& U) const {
  CAMBER_REQUIRE(disc.n_owned() == n_owned_ && disc.n_local() == n_local_,
                 "ExactJacobian::force_partials: the discretization has "
                     << disc.n_owned() << " owned cells, the Jacobian was built for " << n_owned_);
  // The wall force of cell c depends on the states of c and its neighbours
  // (within S(c)); a colour's column of it belongs to the one cell of that
  // colour in S(c), which may be a ghost (objective_gradients sums such
  // entries into their owners).
  ForcePartials p;
  const int nv = nv_;
  Kokkos::View<int*> seeded("euler::gradient_seeded", static_cast<size_t>(n_local_));
  const auto color = color_;
  for (int k = 0; k < n_colors_; ++k) {
    Kokkos::parallel_for(
        "euler::gradient_seed", Kokkos::RangePolicy<>(0, n_local_),
        KOKKOS_LAMBDA(const index_t c) { seeded(c) = color(c) == k ? 1 : 0; });
    const Tensor F = detail::DiscretizationKernels::force_block_columns(disc, U, seeded);
    const auto fh = F.host();
    for (const auto& [c, col] : pattern_->entries[static_cast<size_t>(k)]) {
      const double* f = &fh(c * 3 * nv);
      if (std::all_of(f, f + 3 * nv, [](double v) { return v == 0.0; })) continue;
      p.blocks.push_back({c, col});
      p.values.insert(p.values.end(), f, f + 3 * nv);
    }
  }
  return p;
}

std::vector<Tensor> ExactJacobian::objective_gradients(
    const ForcePartials& partials, const std::vector<std::array<double, 3>>& weights) const {
  const int nv = nv_;
  std::vector<petsc::VecHandle> g(weights.size());
  for (petsc::VecHandle& v : g) {
    CAMBER_CHECK_PETSC(VecCreateMPI(comm_, nv * n_owned_, PETSC_DETERMINE, v.out()));
    CAMBER_CHECK_PETSC(VecSetBlockSize(v.get(), nv));
    CAMBER_CHECK_PETSC(VecZeroEntries(v.get()));
  }
  for (size_t b = 0; b < partials.blocks.size(); ++b) {
    const PetscInt col = partials.blocks[b].second;
    const double* f = &partials.values[b * 3 * nv];
    for (size_t o = 0; o < weights.size(); ++o) {
      PetscScalar v[max_nv];
      for (int j = 0; j < nv; ++j) {
        v[j] = 0.0;
        for (int m = 0; m < 3; ++m) v[j] += weights[o][static_cast<size_t>(m)] * f[m * nv + j];
      }
      CAMBER_CHECK_PETSC(VecSetValuesBlocked(g[o].get(), 1, &col, v, ADD_VALUES));
    }
  }
  std::vector<Tensor> out;
  for (petsc::VecHandle& v : g) {
    CAMBER_CHECK_PETSC(VecAssemblyBegin(v.get()));
    CAMBER_CHECK_PETSC(VecAssemblyEnd(v.get()));
    std::vector<double> values(static_cast<size_t>(n_local_ * nv), 0.0);
    const PetscScalar* a = nullptr;
    CAMBER_CHECK_PETSC(VecGetArrayRead(v.get(), &a));
    std::copy(a, a + n_owned_ * nv, values.begin());
    CAMBER_CHECK_PETSC(VecRestoreArrayRead(v.get(), &a));
    out.push_back(Tensor::from_host({n_local_, nv}, values));
  }
  return out;
}

}  // namespace camber::solvers::euler
