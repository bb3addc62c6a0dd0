#include <camber/shard/collectives.hpp>

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

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

// Copies the box [offset, offset + extent) of a row-major tensor of
// `shape` to (pack) or from (unpack) a contiguous buffer in row-major order.
void copy_box(const Shape& shape, const Shape& offset, const Shape& extent, double* tensor, double* buffer,
              bool pack) {
  const size_t r = shape.size();
  index_t n = 1;
  for (index_t e : extent) n *= e;
  if (n == 0) return;
  Shape stride(r, 1), idx(r, 0);
  for (size_t i = r; i-- > 1;) stride[i - 1] = stride[i] * shape[i];
  for (index_t k = 0; k < n; ++k) {
    index_t at = 0;
    for (size_t i = 0; i < r; ++i) at += (offset[i] + idx[i]) * stride[i];
    if (pack)
      buffer[k] = tensor[at];
    else
      tensor[at] = buffer[k];
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < extent[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace

std::int64_t bytes_sent() { return sent.load(); }

Var all_to_all(const Var& x, int d, int e, const MeshPtr& mesh, int axis, index_t extent_d) {
  check(x, d, "all_to_all");
  check(x, e, "all_to_all");
  CAMBER_REQUIRE(d != e, "all_to_all: the two dimensions must differ");
  const int m = mesh->size(axis), me = mesh->coordinate(axis);
  const Shape in = x.shape();
  const index_t extent_e = in[static_cast<size_t>(e)];
  CAMBER_REQUIRE(in[static_cast<size_t>(d)] == chunk(extent_d, m, me).count,
                 "all_to_all: this rank holds " << in[static_cast<size_t>(d)] << " of " << extent_d
                                                << " entries of dimension " << d << ", not its chunk");
  std::vector<double> mine = x.value().to_vector();
  Shape out_shape = in;
  out_shape[static_cast<size_t>(d)] = extent_d;
  out_shape[static_cast<size_t>(e)] = chunk(extent_e, m, me).count;
  std::vector<int> scount(static_cast<size_t>(m)), sdispl(static_cast<size_t>(m)), rcount(static_cast<size_t>(m)),
      rdispl(static_cast<size_t>(m));
  std::vector<double> sbuf(mine.size());
  std::int64_t at = 0, rat = 0;
  for (int r = 0; r < m; ++r) {
    // To r: my rows of d, r's chunk of e.
    Shape off(in.size(), 0), ext = in;
    const Chunk ce = chunk(extent_e, m, r);
    off[static_cast<size_t>(e)] = ce.offset;
    ext[static_cast<size_t>(e)] = ce.count;
    index_t n = 1;
    for (index_t v : ext) n *= v;
    copy_box(in, off, ext, mine.data(), sbuf.data() + at, true);
    scount[static_cast<size_t>(r)] = mpi_int(n);
    sdispl[static_cast<size_t>(r)] = mpi_int(at);
    at += n;
    // From r: r's chunk of d, my chunk of e.
    Shape rext = out_shape;
    rext[static_cast<size_t>(d)] = chunk(extent_d, m, r).count;
    index_t k = 1;
    for (index_t v : rext) k *= v;
    rcount[static_cast<size_t>(r)] = mpi_int(k);
    rdispl[static_cast<size_t>(r)] = mpi_int(rat);
    rat += k;
  }
  std::vector<double> rbuf(static_cast<size_t>(rat));
  CAMBER_CHECK_MPI(MPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_DOUBLE, rbuf.data(), rcount.data(),
                                 rdispl.data(), MPI_DOUBLE, mesh->axis_comm(axis)));
  sent += (at - scount[static_cast<size_t>(me)]) * static_cast<std::int64_t>(sizeof(double));
  std::vector<double> out(rbuf.size());
  for (int r = 0; r < m; ++r) {
    Shape off(in.size(), 0), ext = out_shape;
    const Chunk cd = chunk(extent_d, m, r);
    off[static_cast<size_t>(d)] = cd.offset;
    ext[static_cast<size_t>(d)] = cd.count;
    copy_box(out_shape, off, ext, out.data(), rbuf.data() + rdispl[static_cast<size_t>(r)], false);
  }
  return ad::record_op(
      "all_to_all", Tensor::from_host(out_shape, out), {x},
      [d, e, mesh, axis, extent_e](const Vars&, const Var&, const Var& g) -> Vars {
        return {all_to_all(g, e, d, mesh, axis, extent_e)};
      },
      [d, e, mesh, axis, extent_d](const Vars&, const Var&, const Vars& t) {
        return all_to_all(t[0], d, e, mesh, axis, extent_d);
      },
      ad::Reads::nothing());
}

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
