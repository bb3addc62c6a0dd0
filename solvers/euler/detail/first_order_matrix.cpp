#include "first_order_matrix.hpp"

#include <utility>

#include <camber/core/error.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_numbering.hpp>

namespace camber::solvers::euler::detail {

namespace {
constexpr int max_nv = 5;
}  // namespace

FirstOrderMatrix::FirstOrderMatrix(const Discretization& disc)
    : disc_(&disc), block_(petsc::petsc_cell_numbers(disc.mesh())) {
  const index_t n_owned = disc.n_owned(), n_faces = disc.n_faces();
  const int nv = disc.n_vars();
  // Sparsity: a block row per owned cell, a block per face neighbour.
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  std::vector<PetscInt> d_nnz(static_cast<size_t>(n_owned), 1), o_nnz(static_cast<size_t>(n_owned), 0);
  for (index_t f = 0; f < n_faces; ++f) {
    const index_t l = left(f), r = right(f);
    if (r < 0) continue;
    for (const auto& [row, col] : {std::pair<index_t, index_t>{l, r}, {r, l}})
      if (row < n_owned) ++(col < n_owned ? d_nnz : o_nnz)[static_cast<size_t>(row)];
  }
  CAMBER_CHECK_PETSC(MatCreate(disc.mesh().comm(), matrix_.out()));
  CAMBER_CHECK_PETSC(MatSetSizes(matrix_.get(), nv * n_owned, nv * n_owned, PETSC_DETERMINE,
                                 PETSC_DETERMINE));
  CAMBER_CHECK_PETSC(MatSetType(matrix_.get(), MATBAIJ));
  CAMBER_CHECK_PETSC(MatSetBlockSize(matrix_.get(), nv));
  CAMBER_CHECK_PETSC(
      MatXAIJSetPreallocation(matrix_.get(), nv, d_nnz.data(), o_nnz.data(), nullptr, nullptr));
  CAMBER_CHECK_PETSC(MatSetOption(matrix_.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
}

void FirstOrderMatrix::assemble(const Tensor& face_blocks, const std::vector<double>& shift) {
  const Discretization& disc = *disc_;
  const index_t n_owned = disc.n_owned(), n_faces = disc.n_faces();
  const int nv = disc.n_vars();
  CAMBER_REQUIRE(shift.empty() || static_cast<index_t>(shift.size()) == n_owned,
                 "FirstOrderMatrix::assemble: " << shift.size() << " shifts for " << n_owned
                                                << " owned cells");
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  const auto jh = face_blocks.host();
  Mat A = matrix_.get();
  CAMBER_CHECK_PETSC(MatZeroEntries(A));
  for (index_t f = 0; f < n_faces; ++f) {
    const index_t l = left(f), r = right(f);
    PetscScalar jl[max_nv * max_nv], jr[max_nv * max_nv], njl[max_nv * max_nv],
        njr[max_nv * max_nv];
    for (int i = 0; i < nv; ++i)
      for (int k = 0; k < nv; ++k) {
        jl[i * nv + k] = jh((f * nv + i) * 2 * nv + k);
        jr[i * nv + k] = jh((f * nv + i) * 2 * nv + nv + k);
        njl[i * nv + k] = -jl[i * nv + k];
        njr[i * nv + k] = -jr[i * nv + k];
      }
    const PetscInt bl = block_[static_cast<size_t>(l)];
    if (l < n_owned) {
      CAMBER_CHECK_PETSC(MatSetValuesBlocked(A, 1, &bl, 1, &bl, jl, ADD_VALUES));
      if (r >= 0) {
        const PetscInt br = block_[static_cast<size_t>(r)];
        CAMBER_CHECK_PETSC(MatSetValuesBlocked(A, 1, &bl, 1, &br, jr, ADD_VALUES));
      }
    }
    if (r >= 0 && r < n_owned) {
      const PetscInt br = block_[static_cast<size_t>(r)];
      CAMBER_CHECK_PETSC(MatSetValuesBlocked(A, 1, &br, 1, &bl, njl, ADD_VALUES));
      CAMBER_CHECK_PETSC(MatSetValuesBlocked(A, 1, &br, 1, &br, njr, ADD_VALUES));
    }
  }
  for (index_t c = 0; c < n_owned; ++c) {
    PetscScalar d[max_nv * max_nv] = {};
    const double s = shift.empty() ? 0.0 : shift[static_cast<size_t>(c)];
    for (int i = 0; i < nv; ++i) d[i * nv + i] = s;
    const PetscInt bc = block_[static_cast<size_t>(c)];
    CAMBER_CHECK_PETSC(MatSetValuesBlocked(A, 1, &bc, 1, &bc, d, ADD_VALUES));
  }
  CAMBER_CHECK_PETSC(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
}

}  // namespace camber::solvers::euler::detail
