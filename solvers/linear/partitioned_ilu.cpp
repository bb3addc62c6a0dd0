#include <camber/solvers/linear/partitioned_ilu.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/parallel/partition.hpp>

#include "detail/block_kernels.hpp"

namespace camber::solvers::linear {

namespace {

using detail::block_product;
using detail::block_subtract_product;
using detail::by_block_size;
using detail::invert;
using Blocks = Kokkos::RangePolicy<>;
using IndexView = Kokkos::View<index_t*>;

IndexView to_view(const std::vector<index_t>& v, const char* name) {
  IndexView d(std::string(name), v.size());
  const auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

template <int BS>
index_t factor_rows(const IndexView& start, const IndexView& ptr, const IndexView& col,
                      const IndexView& diag, const Kokkos::View<double*>& v, const IndexView& marker,
                      index_t n_blocks) {
  constexpr int bb = BS * BS;
  index_t failed = 0;
  Kokkos::parallel_reduce(
      "camber::linear::PartitionedIlu::factor", Blocks(0, n_blocks),
      KOKKOS_LAMBDA(const index_t p, index_t& bad) {
        for (index_t r = start(p); r < start(p + 1); ++r) {
          for (index_t q = ptr(r); q < ptr(r + 1); ++q) marker(col(q)) = q;
          // Row r's lower entries in ascending column order: L_rk = A_rk
          // U_kk^-1, then row r -= L_rk (row k's upper part), inside r's
          // pattern.
          for (index_t q = ptr(r); q < diag(r); ++q) {
            const index_t k = col(q);
            double l[bb];
            block_product<BS>(&v(q * bb), &v(diag(k) * bb), l);
            for (int e = 0; e < bb; ++e) v(q * bb + e) = l[e];
            for (index_t t = diag(k) + 1; t < ptr(k + 1); ++t) {
              const index_t m = marker(col(t));
              if (m >= 0) block_subtract_product<BS>(l, &v(t * bb), &v(m * bb));
            }
          }
          if (!invert<BS>(&v(diag(r) * bb), &v(diag(r) * bb))) ++bad;
          for (index_t q = ptr(r); q < ptr(r + 1); ++q) marker(col(q)) = -1;
        }
      },
      failed);
  return failed;
}

template <int BS>
void apply_blocks(const IndexView& start, const IndexView& perm, const IndexView& ptr,
                  const IndexView& col, const IndexView& diag, const Kokkos::View<double*>& v,
                  const Kokkos::View<double*>& w, ConstVector x, Vector y, index_t n_blocks) {
  constexpr int bb = BS * BS;
  Kokkos::parallel_for(
      "camber::linear::PartitionedIlu::apply", Blocks(0, n_blocks), KOKKOS_LAMBDA(const index_t p) {
        // L w = P x (L unit lower triangular), then U (P y) = w.
        for (index_t r = start(p); r < start(p + 1); ++r) {
          double s[BS];
          for (int i = 0; i < BS; ++i) s[i] = x(perm(r) * BS + i);
          for (index_t q = ptr(r); q < diag(r); ++q) {
            const index_t c = col(q);
            for (int j = 0; j < BS; ++j) {
              const double wj = w(c * BS + j);
              for (int i = 0; i < BS; ++i) s[i] -= v(q * bb + j * BS + i) * wj;
            }
          }
          for (int i = 0; i < BS; ++i) w(r * BS + i) = s[i];
        }
        for (index_t r = start(p + 1) - 1; r >= start(p); --r) {
          double s[BS];
          for (int i = 0; i < BS; ++i) s[i] = w(r * BS + i);
          for (index_t q = diag(r) + 1; q < ptr(r + 1); ++q) {
            const index_t c = col(q);
            for (int j = 0; j < BS; ++j) {
              const double wj = w(c * BS + j);
              for (int i = 0; i < BS; ++i) s[i] -= v(q * bb + j * BS + i) * wj;
            }
          }
          const index_t d = diag(r) * bb;
          for (int i = 0; i < BS; ++i) {
            double t = 0.0;
            for (int j = 0; j < BS; ++j) t += v(d + j * BS + i) * s[j];
            w(r * BS + i) = t;
            y(perm(r) * BS + i) = t;
          }
        }
      });
}

}  // namespace

int PartitionedIlu::default_blocks(index_t n_rows) {
  const index_t threads = static_cast<index_t>(Kokkos::DefaultExecutionSpace().concurrency());
  return static_cast<int>(std::max<index_t>(1, std::min(threads, n_rows / 16)));
}

PartitionedIlu::PartitionedIlu(const BlockSparseMatrix& A, int blocks, int levels)
    : A_(&A), bs_(A.block_size()), levels_(levels) {
  CAMBER_REQUIRE(blocks >= 1, "linear::PartitionedIlu: " << blocks << " blocks (at least 1)");
  CAMBER_REQUIRE(levels >= 0 && levels <= 8,
                 "linear::PartitionedIlu: " << levels << " levels of fill (0 to 8)");
  const index_t n = A.n_rows();
  const auto aptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_ptr());
  const auto acol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.columns());
  // The owned rows' graph, made symmetric, for the partition.
  std::vector<std::vector<std::int64_t>> adj(static_cast<size_t>(n));
  for (index_t i = 0; i < n; ++i)
    for (index_t b = aptr(i); b < aptr(i + 1); ++b) {
      const index_t j = acol(b);
      if (j == i || j >= n) continue;
      adj[static_cast<size_t>(i)].push_back(j);
      adj[static_cast<size_t>(j)].push_back(i);
    }
  std::vector<std::int64_t> xadj(1, 0), adjncy;
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    adjncy.insert(adjncy.end(), a.begin(), a.end());
    xadj.push_back(static_cast<std::int64_t>(adjncy.size()));
  }
  const int parts = static_cast<int>(std::max<index_t>(1, std::min<index_t>(blocks, n)));
  block_of_row_ = n == 0 ? std::vector<int>() : par::partition_graph(xadj, adjncy, parts);
  // Rows by (block, row): the factor's order.
  std::vector<index_t> perm(static_cast<size_t>(n)), inverse(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), index_t{0});
  std::stable_sort(perm.begin(), perm.end(), [&](index_t a, index_t b) {
    return block_of_row_[static_cast<size_t>(a)] < block_of_row_[static_cast<size_t>(b)];
  });
  for (index_t r = 0; r < n; ++r) inverse[static_cast<size_t>(perm[static_cast<size_t>(r)])] = r;
  std::vector<index_t> start(static_cast<size_t>(parts) + 1, 0);
  for (index_t i = 0; i < n; ++i) ++start[static_cast<size_t>(block_of_row_[static_cast<size_t>(i)]) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  // Each factor row: A's blocks within the row's block and the fill up to
  // `levels`, by factor column (symbolic ILU(k), row by row in factor
  // order: the rows of a block are consecutive, so the rows above r in its
  // block are done when r is reached).
  std::vector<index_t> ptr(1, 0), col, diag(static_cast<size_t>(n)), source;
  std::vector<int> level;  // of each factor entry
  std::map<index_t, std::pair<int, index_t>> row;  // column -> (level, source)
  for (index_t r = 0; r < n; ++r) {
    const index_t i = perm[static_cast<size_t>(r)];
    const int p = block_of_row_[static_cast<size_t>(i)];
    row.clear();
    for (index_t b = aptr(i); b < aptr(i + 1); ++b) {
      const index_t j = acol(b);
      if (j < n && block_of_row_[static_cast<size_t>(j)] == p)
        row.emplace(inverse[static_cast<size_t>(j)], std::make_pair(0, b));
    }
    if (levels_ > 0)
      for (auto it = row.begin(); it != row.end() && it->first < r; ++it) {
        const index_t k = it->first;
        const int lk = it->second.first;
        for (index_t t = diag[static_cast<size_t>(k)] + 1; t < ptr[static_cast<size_t>(k) + 1]; ++t) {
          const int lev = lk + level[static_cast<size_t>(t)] + 1;
          if (lev > levels_) continue;
          const auto [at, added] = row.emplace(col[static_cast<size_t>(t)], std::make_pair(lev, index_t{-1}));
          if (!added) at->second.first = std::min(at->second.first, lev);
        }
      }
    for (const auto& [c, e] : row) {
      if (c == r) diag[static_cast<size_t>(r)] = static_cast<index_t>(col.size());
      col.push_back(c);
      level.push_back(e.first);
      source.push_back(e.second);
    }
    ptr.push_back(static_cast<index_t>(col.size()));
  }
  block_start_ = to_view(start, "camber::linear::ilu_block_start");
  perm_ = to_view(perm, "camber::linear::ilu_perm");
  row_ptr_ = to_view(ptr, "camber::linear::ilu_row_ptr");
  col_ = to_view(col, "camber::linear::ilu_col");
  diag_ = to_view(diag, "camber::linear::ilu_diag");
  source_ = to_view(source, "camber::linear::ilu_source");
  values_ = Kokkos::View<double*>("camber::linear::ilu_values", col.size() * static_cast<size_t>(bs_ * bs_));
  marker_ = IndexView("camber::linear::ilu_marker", static_cast<size_t>(n));
  Kokkos::deep_copy(marker_, index_t{-1});
  work_ = Kokkos::View<double*>("camber::linear::ilu_work", static_cast<size_t>(n * bs_));
}

bool PartitionedIlu::factor() {
  const int bb = bs_ * bs_;
  const auto v = values_;
  const auto a = A_->values();
  const auto source = source_;
  Kokkos::parallel_for(
      "camber::linear::PartitionedIlu::copy", Kokkos::RangePolicy<>(0, static_cast<index_t>(col_.extent(0))),
      KOKKOS_LAMBDA(const index_t q) {
        const index_t from = source(q);
        for (int e = 0; e < bb; ++e) v(q * bb + e) = from >= 0 ? a(from * bb + e) : 0.0;
      });
  index_t failed = 0;
  by_block_size(bs_, [&](auto BS) {
    failed = factor_rows<decltype(BS)::value>(block_start_, row_ptr_, col_, diag_, values_, marker_,
                                                blocks());
  });
  index_t total = 0;
  CAMBER_CHECK_MPI(MPI_Allreduce(&failed, &total, 1, MPI_INT64_T, MPI_SUM, A_->comm()));
  return total == 0;
}

void PartitionedIlu::apply(ConstVector x, Vector y) const {
  by_block_size(bs_, [&](auto BS) {
    apply_blocks<decltype(BS)::value>(block_start_, perm_, row_ptr_, col_, diag_, values_, work_, x, y,
                                      blocks());
  });
}

}  // namespace camber::solvers::linear
