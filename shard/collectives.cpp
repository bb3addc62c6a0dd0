#include <camber/shard/collectives.hpp>

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <vector>

#include <camber/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/runtime.hpp>

namespace camber::shard {

namespace {

using ad::Var;
using ad::Vars;

std::atomic<std::int64_t> sent{0};

// A shape as (outer, n, inner) around dimension d.
struct Around {
  index_t outer = 1, n = 0, inner = 1;
};
Around around(const Shape& s, int d) {
  Around a;
  for (int i = 0; i < d; ++i) a.outer *= s[static_cast<size_t>(i)];
  a.n = s[static_cast<size_t>(d)];
  for (size_t i = static_cast<size_t>(d) + 1; i < s.size(); ++i) a.inner *= s[i];
  return a;
}

void check(const Var& x, int d, const char* who) {
  CAMBER_REQUIRE(x.dtype() == DType::float64, who << ": float64 tensors only");
  CAMBER_REQUIRE(d >= 0 && d < x.rank(), who << ": dimension " << d << " of a tensor with " << x.rank()
                                             << " dimensions");
}

int mpi_int(std::int64_t n) {
  CAMBER_REQUIRE(n >= 0 && n <= std::numeric_limits<int>::max(), "sharding: " << n << " values exceed MPI's int count");
  return static_cast<int>(n);
}

}  // namespace

std::int64_t bytes_sent() { return sent.load(); }

Var all_gather(const Var& x, int d, const MeshPtr& mesh, int axis, index_t extent) {
  check(x, d, "all_gather");
  const MPI_Comm comm = mesh->axis_comm(axis);
  const int m = mesh->size(axis);
  const Around a = around(x.shape(), d);
  std::vector<int> counts(static_cast<size_t>(m)), displs(static_cast<size_t>(m));
  index_t total = 0;
  for (int r = 0; r < m; ++r) {
    const Chunk c = chunk(extent, m, r);
    counts[static_cast<size_t>(r)] = mpi_int(a.outer * c.count * a.inner);
    displs[static_cast<size_t>(r)] = mpi_int(a.outer * c.offset * a.inner);
    total += c.count;
  }
  CAMBER_REQUIRE(total == extent && a.n == chunk(extent, m, mesh->coordinate(axis)).count,
                 "all_gather: this rank holds " << a.n << " of " << extent << " entries of dimension " << d
                                                << ", not its chunk");
  const std::vector<double> mine = x.value().to_vector();
  std::vector<double> packed(static_cast<size_t>(a.outer * extent * a.inner));
  CAMBER_CHECK_MPI(MPI_Allgatherv(mine.data(), mpi_int(static_cast<std::int64_t>(mine.size())), MPI_DOUBLE,
                                  packed.data(), counts.data(), displs.data(), MPI_DOUBLE, comm));
  sent += static_cast<std::int64_t>(mine.size() * sizeof(double)) * (m - 1);
  // packed: rank by rank, each [outer, n_r, inner]; out: [outer, extent, inner].
  std::vector<double> out(packed.size());
  for (int r = 0; r < m; ++r) {
    const Chunk c = chunk(extent, m, r);
    const double* src = packed.data() + displs[static_cast<size_t>(r)];
    for (index_t o = 0; o < a.outer; ++o)
      std::copy(src + o * c.count * a.inner, src + (o + 1) * c.count * a.inner,
                out.data() + (o * extent + c.offset) * a.inner);
  }
  Shape shape = x.shape();
  shape[static_cast<size_t>(d)] = extent;
  return ad::record_op(
      "all_gather", Tensor::from_host(shape, out), {x},
      [d, mesh, axis](const Vars&, const Var&, const Var& g) -> Vars { return {local_chunk(g, d, mesh, axis)}; },
      [d, mesh, axis, extent](const Vars&, const Var&, const Vars& t) { return all_gather(t[0], d, mesh, axis, extent); },
      ad::Reads::nothing());
}

namespace detail {

// all_gather whose VJP sums over the axis (reduce_scatter): the cotangent
// of a partial input, which a second backward pass reaches from
// rank-dependent uses.
Var all_gather_summing_back(const Var& x, int d, const MeshPtr& mesh, int axis, index_t extent) {
  const Var y = all_gather(x, d, mesh, axis, extent).detach();
  return ad::record_op(
      "all_gather_summing_back", y.value(), {x},
      [d, mesh, axis](const Vars&, const Var&, const Var& g) -> Vars { return {reduce_scatter(g, d, mesh, axis)}; },
      [d, mesh, axis, extent](const Vars&, const Var&, const Vars& t) {
        return all_gather_summing_back(t[0], d, mesh, axis, extent);
      },
      ad::Reads::nothing());
}

}  // namespace detail

Var local_chunk(const Var& x, int d, const MeshPtr& mesh, int axis) {
  check(x, d, "local_chunk");
  const index_t extent = x.shape()[static_cast<size_t>(d)];
  const Chunk c = chunk(extent, mesh->size(axis), mesh->coordinate(axis));
  const Around a = around(x.shape(), d);
  const std::vector<double> all = x.value().to_vector();
  std::vector<double> out(static_cast<size_t>(a.outer * c.count * a.inner));
  for (index_t o = 0; o < a.outer; ++o)
    std::copy(all.data() + (o * extent + c.offset) * a.inner, all.data() + (o * extent + c.offset + c.count) * a.inner,
              out.data() + o * c.count * a.inner);
  Shape shape = x.shape();
  shape[static_cast<size_t>(d)] = c.count;
  return ad::record_op(
      "local_chunk", Tensor::from_host(shape, out), {x},
      [d, mesh, axis, extent](const Vars&, const Var&, const Var& g) -> Vars {
        return {all_gather(g, d, mesh, axis, extent)};
      },
      [d, mesh, axis](const Vars&, const Var&, const Vars& t) { return local_chunk(t[0], d, mesh, axis); },
      ad::Reads::nothing());
}

Var all_reduce(const Var& x, const MeshPtr& mesh, int axis) {
  CAMBER_REQUIRE(x.dtype() == DType::float64, "all_reduce: float64 tensors only");
  Tensor value = x.value().clone();
  par::allreduce_sum_in_place(value, mesh->axis_comm(axis));
  sent += static_cast<std::int64_t>(value.size()) * 8 * 2 * (mesh->size(axis) - 1) / std::max(1, mesh->size(axis));
  return ad::record_op(
      "all_reduce", value, {x},
      // The partial input's cotangent is the replicated g; what a second
      // backward pass sends into it from rank-dependent uses is summed.
      [mesh, axis](const Vars&, const Var&, const Var& g) -> Vars { return {grad_all_reduce(g, mesh, axis)}; },
      [mesh, axis](const Vars&, const Var&, const Vars& t) { return all_reduce(t[0], mesh, axis); },
      ad::Reads::nothing());
}

Var reduce_scatter(const Var& x, int d, const MeshPtr& mesh, int axis) {
  check(x, d, "reduce_scatter");
  const int m = mesh->size(axis);
  const index_t extent = x.shape()[static_cast<size_t>(d)];
  const Around a = around(x.shape(), d);
  const std::vector<double> all = x.value().to_vector();
  // Packed rank by rank: [outer, n_r, inner] each.
  std::vector<double> packed(all.size());
  std::vector<int> counts(static_cast<size_t>(m));
  size_t at = 0;
  for (int r = 0; r < m; ++r) {
    const Chunk c = chunk(extent, m, r);
    counts[static_cast<size_t>(r)] = mpi_int(a.outer * c.count * a.inner);
    for (index_t o = 0; o < a.outer; ++o) {
      std::copy(all.data() + (o * extent + c.offset) * a.inner, all.data() + (o * extent + c.offset + c.count) * a.inner,
                packed.data() + at);
      at += static_cast<size_t>(c.count * a.inner);
    }
  }
  const int me = mesh->coordinate(axis);
  std::vector<double> out(static_cast<size_t>(counts[static_cast<size_t>(me)]));
  CAMBER_CHECK_MPI(MPI_Reduce_scatter(packed.data(), out.data(), counts.data(), MPI_DOUBLE, MPI_SUM,
                                      mesh->axis_comm(axis)));
  sent += static_cast<std::int64_t>(all.size() * sizeof(double)) * (m - 1) / std::max(1, m);
  Shape shape = x.shape();
  shape[static_cast<size_t>(d)] = chunk(extent, m, me).count;
  return ad::record_op(
      "reduce_scatter", Tensor::from_host(shape, out), {x},
      [d, mesh, axis, extent](const Vars&, const Var&, const Var& g) -> Vars {
        return {detail::all_gather_summing_back(g, d, mesh, axis, extent)};
      },
      [d, mesh, axis](const Vars&, const Var&, const Vars& t) { return reduce_scatter(t[0], d, mesh, axis); },
      ad::Reads::nothing());
}

Var partial_from_replicate(const Var& x, const MeshPtr& mesh, int axis) {
  Tensor value = mesh->coordinate(axis) == 0 ? x.value().clone() : Tensor::zeros(x.shape());
  return ad::record_op(
      "partial_from_replicate", value, {x}, [](const Vars&, const Var&, const Var& g) -> Vars { return {g}; },
      [mesh, axis](const Vars&, const Var&, const Vars& t) { return partial_from_replicate(t[0], mesh, axis); },
      ad::Reads::nothing());
}

Var grad_all_reduce(const Var& x, const MeshPtr& mesh, int axis) {
  if (mesh->size(axis) == 1) return x;
  return ad::record_op(
      "grad_all_reduce", x.value().clone(), {x},
      [mesh, axis](const Vars&, const Var&, const Var& g) -> Vars { return {all_reduce(g, mesh, axis)}; },
      [](const Vars&, const Var&, const Vars& t) { return t[0]; }, ad::Reads::nothing());
}

}  // namespace camber::shard
