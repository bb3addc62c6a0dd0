#include <camber/solvers/linear/linear_operator.hpp>

#include <cmath>
#include <type_traits>
#include <vector>

#include <camber/core/error.hpp>

namespace camber::solvers::linear {

namespace {

using Range = Kokkos::RangePolicy<>;

index_t chunks_of(index_t n) { return (n + reduction_chunk - 1) / reduction_chunk; }

// The chunks' partial sums added in chunk order, then across ranks.
void finish_sums(const Kokkos::View<double**, Kokkos::LayoutRight>& partial, int n_columns,
                 MPI_Comm comm, double* out) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), partial);
  std::vector<double> sums(static_cast<size_t>(n_columns), 0.0);
  for (size_t c = 0; c < h.extent(0); ++c)
    for (int i = 0; i < n_columns; ++i) sums[static_cast<size_t>(i)] += h(c, static_cast<size_t>(i));
  CAMBER_CHECK_MPI(MPI_Allreduce(sums.data(), out, n_columns, MPI_DOUBLE, MPI_SUM, comm));
}

}  // namespace

void IdentityPreconditioner::apply(ConstVector x, Vector y) const { Kokkos::deep_copy(y, x); }

double dot(ConstVector x, ConstVector y, MPI_Comm comm) {
  CAMBER_REQUIRE(x.extent(0) == y.extent(0), "linear::dot: vectors of " +
                                                 std::to_string(x.extent(0)) + " and " +
                                                 std::to_string(y.extent(0)) + " rows");
  const index_t n = static_cast<index_t>(x.extent(0));
  const index_t nc = chunks_of(n);
  Kokkos::View<double**, Kokkos::LayoutRight> partial("camber::linear::dot", static_cast<size_t>(nc), 1);
  Kokkos::parallel_for(
      "camber::linear::dot", Range(0, nc), KOKKOS_LAMBDA(const index_t c) {
        const index_t end = (c + 1) * reduction_chunk < n ? (c + 1) * reduction_chunk : n;
        double s = 0.0;
        for (index_t e = c * reduction_chunk; e < end; ++e) s += x(e) * y(e);
        partial(c, 0) = s;
      });
  double out = 0.0;
  finish_sums(partial, 1, comm, &out);
  return out;
}

double norm2(ConstVector x, MPI_Comm comm) { return std::sqrt(dot(x, x, comm)); }

void dots(const Basis& V, int n_columns, ConstVector w, MPI_Comm comm, double* out) {
  CAMBER_REQUIRE(n_columns >= 0 && static_cast<size_t>(n_columns) <= V.extent(1) &&
                     V.extent(0) == w.extent(0),
                 "linear::dots: a basis of " + std::to_string(V.extent(0)) + " x " +
                     std::to_string(V.extent(1)) + " against " + std::to_string(n_columns) +
                     " columns and a vector of " + std::to_string(w.extent(0)) + " rows");
  if (n_columns == 0) return;
  const index_t n = static_cast<index_t>(w.extent(0));
  const index_t nc = chunks_of(n);
  Kokkos::View<double**, Kokkos::LayoutRight> partial("camber::linear::dots", static_cast<size_t>(nc),
                                                      static_cast<size_t>(n_columns));
  Kokkos::parallel_for(
      "camber::linear::dots",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {nc, static_cast<index_t>(n_columns)}),
      KOKKOS_LAMBDA(const index_t c, const index_t i) {
        const index_t end = (c + 1) * reduction_chunk < n ? (c + 1) * reduction_chunk : n;
        double s = 0.0;
        for (index_t e = c * reduction_chunk; e < end; ++e) s += V(e, i) * w(e);
        partial(c, i) = s;
      });
  finish_sums(partial, n_columns, comm, out);
}

void axpy(double a, ConstVector x, Vector y) {
  Kokkos::parallel_for(
      "camber::linear::axpy", Range(0, static_cast<index_t>(y.extent(0))),
      KOKKOS_LAMBDA(const index_t e) { y(e) += a * x(e); });
}

void scale_into(double a, ConstVector x, Vector y) {
  Kokkos::parallel_for(
      "camber::linear::scale", Range(0, static_cast<index_t>(y.extent(0))),
      KOKKOS_LAMBDA(const index_t e) { y(e) = a * x(e); });
}

void subtract_combination(const Basis& V, int n, const double* h, Vector w) {
  if (n <= 0) return;
  Kokkos::View<double*> hd("camber::linear::coefficients", static_cast<size_t>(n));
  {
    const auto hh = Kokkos::create_mirror_view(hd);
    for (int i = 0; i < n; ++i) hh(static_cast<size_t>(i)) = h[i];
    Kokkos::deep_copy(hd, hh);
  }
  const index_t rows = static_cast<index_t>(w.extent(0));
  // Entry e gets sum_i V(e, i) h_i, summed in column order, either way: on
  // a GPU one thread per entry (consecutive threads read consecutive
  // entries of a column); on host threads one per run of 256 entries,
  // column by column, so each column is read as one contiguous stream
  // rather than one entry of each column in turn.
  if constexpr (std::is_same_v<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>) {
    constexpr index_t run = 256;
    Kokkos::parallel_for(
        "camber::linear::subtract_combination", Range(0, (rows + run - 1) / run),
        KOKKOS_LAMBDA(const index_t c) {
          const index_t first = c * run, count = first + run < rows ? run : rows - first;
          double s[run];
          for (index_t e = 0; e < count; ++e) s[e] = 0.0;
          for (int i = 0; i < n; ++i) {
            const double hi = hd(i);
            for (index_t e = 0; e < count; ++e) s[e] += V(first + e, i) * hi;
          }
          for (index_t e = 0; e < count; ++e) w(first + e) -= s[e];
        });
  } else {
    Kokkos::parallel_for(
        "camber::linear::subtract_combination", Range(0, rows), KOKKOS_LAMBDA(const index_t e) {
          double s = 0.0;
          for (int i = 0; i < n; ++i) s += V(e, i) * hd(i);
          w(e) -= s;
        });
  }
}

}  // namespace camber::solvers::linear
