#include <camber/solvers/linear/block_sparse_matrix.hpp>

#include <algorithm>
#include <string>

#include <camber/core/error.hpp>

#include "detail/block_kernels.hpp"

namespace camber::solvers::linear {

namespace {

using Range = Kokkos::RangePolicy<>;
using detail::by_block_size;
using detail::invert;

BlockSparseMatrix::IndexView to_view(const std::vector<index_t>& v, const char* name) {
  BlockSparseMatrix::IndexView d(std::string(name), v.size());
  const auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

// Row i of y = A x, bs known at compile time.
template <int BS>
void multiply_rows(const BlockSparseMatrix::IndexView& ptr, const BlockSparseMatrix::IndexView& col,
                   const Kokkos::View<double*>& a, const Kokkos::View<double*>& x, Vector y,
                   index_t n_rows) {
  Kokkos::parallel_for(
      "camber::linear::BlockSparseMatrix::apply", Range(0, n_rows), KOKKOS_LAMBDA(const index_t i) {
        double s[BS];
        for (int r = 0; r < BS; ++r) s[r] = 0.0;
        for (index_t b = ptr(i); b < ptr(i + 1); ++b) {
          const index_t j = col(b);
          const double* blk = &a(b * BS * BS);
          for (int c = 0; c < BS; ++c) {
            const double xc = x(j * BS + c);
            for (int r = 0; r < BS; ++r) s[r] += blk[c * BS + r] * xc;
          }
        }
        for (int r = 0; r < BS; ++r) y(i * BS + r) = s[r];
      });
}

template <int BS>
index_t invert_diagonal(const BlockSparseMatrix::IndexView& diag, const Kokkos::View<double*>& a,
                        const Kokkos::View<double*>& inv, index_t n_rows) {
  index_t failed = 0;
  Kokkos::parallel_reduce(
      "camber::linear::PointBlockJacobi::factor", Range(0, n_rows),
      KOKKOS_LAMBDA(const index_t i, index_t& bad) {
        if (!invert<BS>(&a(diag(i) * BS * BS), &inv(i * BS * BS))) ++bad;
      },
      failed);
  return failed;
}

template <int BS>
void apply_inverse(const Kokkos::View<double*>& inv, ConstVector x, Vector y, index_t n_rows) {
  Kokkos::parallel_for(
      "camber::linear::PointBlockJacobi::apply", Range(0, n_rows), KOKKOS_LAMBDA(const index_t i) {
        const double* m = &inv(i * BS * BS);
        double s[BS];
        for (int r = 0; r < BS; ++r) s[r] = 0.0;
        for (int c = 0; c < BS; ++c) {
          const double xc = x(i * BS + c);
          for (int r = 0; r < BS; ++r) s[r] += m[c * BS + r] * xc;
        }
        for (int r = 0; r < BS; ++r) y(i * BS + r) = s[r];
      });
}

}  // namespace

BlockSparseMatrix::BlockSparseMatrix(const par::CellDistribution& dist, int block_size,
                                     const std::vector<index_t>& row_ptr,
                                     const std::vector<index_t>& columns)
    : bs_(block_size), n_rows_(dist.n_owned()), comm_(dist.comm()), row_ptr_host_(row_ptr),
      columns_host_(columns), halo_(dist) {
  by_block_size(bs_, [](auto) {});
  const std::string where = "linear::BlockSparseMatrix: ";
  CAMBER_REQUIRE(static_cast<index_t>(row_ptr.size()) == n_rows_ + 1 && row_ptr.front() == 0 &&
                     row_ptr.back() == static_cast<index_t>(columns.size()),
                 where + "row_ptr has " + std::to_string(row_ptr.size()) + " entries for " +
                     std::to_string(n_rows_) + " owned rows and " + std::to_string(columns.size()) +
                     " blocks");
  std::vector<index_t> diag(static_cast<size_t>(n_rows_), -1);
  const index_t n_local = dist.n_local();
  for (index_t i = 0; i < n_rows_; ++i) {
    const index_t b0 = row_ptr[static_cast<size_t>(i)], b1 = row_ptr[static_cast<size_t>(i) + 1];
    CAMBER_REQUIRE(b0 <= b1, where + "row " + std::to_string(i) + ": row_ptr decreases");
    for (index_t b = b0; b < b1; ++b) {
      const index_t j = columns[static_cast<size_t>(b)];
      CAMBER_REQUIRE(j >= 0 && j < n_local, where + "row " + std::to_string(i) + ": column " +
                                                std::to_string(j) + " is not a local cell (0 to " +
                                                std::to_string(n_local - 1) + ")");
      CAMBER_REQUIRE(b == b0 || columns[static_cast<size_t>(b) - 1] < j,
                     where + "row " + std::to_string(i) + ": columns not ascending and distinct");
      if (j == i) diag[static_cast<size_t>(i)] = b;
    }
    CAMBER_REQUIRE(diag[static_cast<size_t>(i)] >= 0,
                   where + "row " + std::to_string(i) + " has no diagonal block");
  }
  row_ptr_ = to_view(row_ptr, "camber::linear::row_ptr");
  columns_ = to_view(columns, "camber::linear::columns");
  diagonal_ = to_view(diag, "camber::linear::diagonal");
  values_ = Kokkos::View<double*>("camber::linear::values", columns.size() * static_cast<size_t>(bs_ * bs_));
  ghosted_ = Tensor({n_local, static_cast<index_t>(bs_)});
}

index_t BlockSparseMatrix::block_index(index_t row, index_t column) const {
  if (row < 0 || row >= n_rows_) return -1;
  const auto first = columns_host_.begin() + row_ptr_host_[static_cast<size_t>(row)];
  const auto last = columns_host_.begin() + row_ptr_host_[static_cast<size_t>(row) + 1];
  const auto it = std::lower_bound(first, last, column);
  return it != last && *it == column ? static_cast<index_t>(it - columns_host_.begin()) : -1;
}

void BlockSparseMatrix::apply(ConstVector x, Vector y) const {
  CAMBER_REQUIRE(static_cast<index_t>(x.extent(0)) == local_size() &&
                     static_cast<index_t>(y.extent(0)) == local_size(),
                 "linear::BlockSparseMatrix::apply: vectors of " + std::to_string(x.extent(0)) +
                     " and " + std::to_string(y.extent(0)) + " rows for " +
                     std::to_string(local_size()));
  const Kokkos::View<double*> g = ghosted_.view();
  Kokkos::deep_copy(Kokkos::subview(g, std::make_pair(index_t{0}, local_size())), x);
  halo_.forward(ghosted_);
  by_block_size(bs_, [&](auto BS) {
    multiply_rows<decltype(BS)::value>(row_ptr_, columns_, values_, ghosted_.view(), y, n_rows_);
  });
}

PointBlockJacobi::PointBlockJacobi(const BlockSparseMatrix& A)
    : A_(&A),
      inverse_("camber::linear::PointBlockJacobi",
               static_cast<size_t>(A.n_rows() * A.block_size() * A.block_size())) {}

bool PointBlockJacobi::factor() {
  index_t failed = 0;
  by_block_size(A_->block_size(), [&](auto BS) {
    failed = invert_diagonal<decltype(BS)::value>(A_->diagonal(), A_->values(), inverse_, A_->n_rows());
  });
  index_t total = 0;
  CAMBER_CHECK_MPI(MPI_Allreduce(&failed, &total, 1, MPI_INT64_T, MPI_SUM, A_->comm()));
  return total == 0;
}

void PointBlockJacobi::apply(ConstVector x, Vector y) const {
  by_block_size(A_->block_size(), [&](auto BS) {
    apply_inverse<decltype(BS)::value>(inverse_, x, y, A_->n_rows());
  });
}

}  // namespace camber::solvers::linear
