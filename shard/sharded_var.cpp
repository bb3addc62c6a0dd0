#include <camber/shard/sharded_var.hpp>

#include <algorithm>

#include <camber/autodiff/distributed_ops.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>

namespace camber::shard {

namespace {

using ad::Var;

Placements all_replicate(const DeviceMesh& mesh) { return Placements(static_cast<size_t>(mesh.ndim()), Placement::replicate()); }

void same_mesh(const ShardedVar& a, const ShardedVar& b, const char* op) {
  CAMBER_REQUIRE(a.mesh && a.mesh == b.mesh, "sharding: " << op << " of tensors on different device meshes");
}

// x with axis t's placement changed to `to` (a logged, inserted redistribution).
ShardedVar relayout(const ShardedVar& x, int t, Placement to, const char* op) {
  Placements p = x.placements;
  const std::string from = to_string(p);
  p[static_cast<size_t>(t)] = to;
  logging::debug("sharding: " + std::string(op) + " redistributes " + from + " -> " + to_string(p) + " on mesh axis " +
                 x.mesh->name(t));
  return redistribute(x, p);
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const index_t x = i + a.size() >= r ? a[i + a.size() - r] : 1;
    const index_t y = i + b.size() >= r ? b[i + b.size() - r] : 1;
    CAMBER_REQUIRE(x == y || x == 1 || y == 1, "sharding: shapes do not broadcast");
    out[i] = std::max(x, y);
  }
  return out;
}

enum class Binary { add, sub, mul, div, maximum, minimum, pow };

Var apply(Binary op, const Var& a, const Var& b) {
  switch (op) {
    case Binary::add: return ad::add(a, b);
    case Binary::sub: return ad::sub(a, b);
    case Binary::mul: return ad::mul(a, b);
    case Binary::div: return ad::div(a, b);
    case Binary::maximum: return ad::maximum(a, b);
    case Binary::minimum: return ad::minimum(a, b);
    default: return ad::pow(a, b);
  }
}

const char* name_of(Binary op) {
  switch (op) {
    case Binary::add: return "add";
    case Binary::sub: return "sub";
    case Binary::mul: return "mul";
    case Binary::div: return "div";
    case Binary::maximum: return "maximum";
    case Binary::minimum: return "minimum";
    default: return "pow";
  }
}

// The rule for one mesh axis of an element-wise op, changing a and b as
// it needs; returns the output's placement there, or false when none
// applies (the caller redistributes).
// `taken`: the output dimensions earlier mesh axes already split.
bool elementwise_rule(Binary op, ShardedVar& a, ShardedVar& b, int t, size_t out_rank, const Placements& taken,
                      Placement& out) {
  const auto free_dim = [&](int d) {
    for (int u = 0; u < t; ++u)
      if (taken[static_cast<size_t>(u)].is_shard(d)) return false;
    return true;
  };
  const Placement pa = a.placements[static_cast<size_t>(t)], pb = b.placements[static_cast<size_t>(t)];
  const auto out_dim = [&](const ShardedVar& x, int d) { return static_cast<int>(d + out_rank - x.global_shape.size()); };
  if (pa.is_cells() || pb.is_cells()) {
    if (pa.is_cells() && pb.is_cells()) {
      CAMBER_REQUIRE(a.cells->distribution == b.cells->distribution, "sharding: cell fields of two partitions");
      out = pa;
      return true;
    }
    ShardedVar& r = pa.is_cells() ? b : a;  // the other operand
    const Placement pr = pa.is_cells() ? pb : pa;
    const int rd = 0 - static_cast<int>(out_rank - r.global_shape.size());
    CAMBER_REQUIRE(pr.is_replicate() && (rd < 0 || r.global_shape[static_cast<size_t>(rd)] == 1),
                   "sharding: a cell field combines with another cell field or a replicated tensor broadcast "
                   "along the cells, not with " << to_string({pr}) << " of shape " << shape_string(r.global_shape));
    r.local = grad_all_reduce(r.local, r.mesh, t);
    out = Placement::cells();
    return true;
  }
  if (pa.is_replicate() && pb.is_replicate()) {
    out = pa;
    return true;
  }
  if (pa.is_shard() && pb.is_shard()) {
    if (out_dim(a, pa.dim) != out_dim(b, pb.dim)) return false;
    if (a.global_shape[static_cast<size_t>(pa.dim)] != b.global_shape[static_cast<size_t>(pb.dim)]) return false;
    if (!free_dim(out_dim(a, pa.dim))) return false;
    out = Placement::shard(out_dim(a, pa.dim));
    return true;
  }
  // One sharded, the other replicated.
  for (int side = 0; side < 2; ++side) {
    ShardedVar& s = side == 0 ? a : b;
    ShardedVar& r = side == 0 ? b : a;
    const Placement ps = s.placements[static_cast<size_t>(t)], pr = r.placements[static_cast<size_t>(t)];
    if (!ps.is_shard() || !pr.is_replicate()) continue;
    const int od = out_dim(s, ps.dim);
    const index_t extent = s.global_shape[static_cast<size_t>(ps.dim)];
    const int rd = od - static_cast<int>(out_rank - r.global_shape.size());
    if (!free_dim(od) || s.global_shape[static_cast<size_t>(ps.dim)] != extent) return false;
    for (const Placement& q : r.placements)
      if (rd >= 0 && q.is_shard(rd)) return false;  // r's dimension is split by another axis
    if (rd >= 0 && r.global_shape[static_cast<size_t>(rd)] == extent && extent > 1) {
      r.local = local_chunk(r.local, rd, r.mesh, t);  // the matching rows of the replicated side
      r.placements[static_cast<size_t>(t)] = Placement::shard(rd);
    } else if (rd < 0 || r.global_shape[static_cast<size_t>(rd)] == 1) {
      r.local = grad_all_reduce(r.local, r.mesh, t);  // broadcast along the split dimension
    } else {
      return false;
    }
    out = Placement::shard(od);
    return true;
  }
  const bool linear_mix = op == Binary::add || op == Binary::sub;
  if (pa.is_partial() && pb.is_partial()) {
    if (!linear_mix) return false;
    out = pa;
    return true;
  }
  const bool product = op == Binary::mul || op == Binary::div;  // linear in the numerator
  if ((pa.is_partial() || pb.is_partial()) && !linear_mix && !product) return false;
  if (pa.is_partial() && pb.is_replicate()) {
    if (linear_mix) {
      b.local = partial_from_replicate(b.local, b.mesh, t);
      b.placements[static_cast<size_t>(t)] = Placement::partial();
    } else {
      b.local = grad_all_reduce(b.local, b.mesh, t);  // a * b and a / b are linear in a
    }
    out = pa;
    return true;
  }
  if (pa.is_replicate() && pb.is_partial()) {
    if (op == Binary::div) return false;
    if (linear_mix) {
      a.local = partial_from_replicate(a.local, a.mesh, t);
      a.placements[static_cast<size_t>(t)] = Placement::partial();
    } else {
      a.local = grad_all_reduce(a.local, a.mesh, t);
    }
    out = pb;
    return true;
  }
  return false;
}

ShardedVar elementwise(Binary op, ShardedVar a, ShardedVar b) {
  same_mesh(a, b, name_of(op));
  const Shape shape = broadcast_shapes(a.global_shape, b.global_shape);
  Placements out(a.placements.size());
  for (int t = 0; t < a.mesh->ndim(); ++t) {
    Placement p;
    if (!elementwise_rule(op, a, b, t, shape.size(), out, p)) {
      a = relayout(a, t, Placement::replicate(), name_of(op));
      b = relayout(b, t, Placement::replicate(), name_of(op));
      p = Placement::replicate();
    }
    out[static_cast<size_t>(t)] = p;
  }
  return {apply(op, a.local, b.local), shape, a.mesh, out, a.cells ? a.cells : b.cells};
}

}  // namespace

namespace {

// A cell field's owned rows, gathered by global id (every rank); VJP:
// pick_owned of the cotangent.
Var gather_cells(const Var& x, std::shared_ptr<const CellLayout> layout);

// The rows of a whole field for this rank's owned cells (ghost rows zero);
// VJP: gather_cells.
Var pick_owned(const Var& whole, std::shared_ptr<const CellLayout> layout) {
  const par::CellDistribution& d = *layout->distribution;
  Shape shape = whole.shape();
  index_t inner = 1;
  for (size_t i = 1; i < shape.size(); ++i) inner *= shape[i];
  shape[0] = d.n_local();
  const std::vector<double> all = whole.value().to_vector();
  std::vector<double> out(static_cast<size_t>(d.n_local() * inner), 0.0);
  for (index_t c = 0; c < d.n_owned(); ++c) {
    const std::int64_t g = d.local_to_global()[static_cast<size_t>(c)];
    std::copy(all.begin() + g * inner, all.begin() + (g + 1) * inner, out.begin() + c * inner);
  }
  return ad::record_op(
      "pick_owned", Tensor::from_host(shape, out), {whole},
      [layout](const ad::Vars&, const Var&, const Var& g) -> ad::Vars { return {gather_cells(g, layout)}; },
      [layout](const ad::Vars&, const Var&, const ad::Vars& t) { return pick_owned(t[0], layout); },
      ad::Reads::nothing());
}

Var gather_cells(const Var& x, std::shared_ptr<const CellLayout> layout) {
  Tensor value = par::gather_owned(x.value(), *layout->distribution);
  return ad::record_op(
      "gather_cells", value, {x},
      [layout](const ad::Vars&, const Var&, const Var& g) -> ad::Vars { return {pick_owned(g, layout)}; },
      [layout](const ad::Vars&, const Var&, const ad::Vars& t) { return gather_cells(t[0], layout); },
      ad::Reads::nothing());
}

}  // namespace

ShardedVar cell_field(const Var& local, const MeshPtr& mesh, const par::CellDistribution& distribution,
                      par::HaloExchange& halo) {
  CAMBER_REQUIRE(mesh && mesh->ndim() == 1 && mesh->size(0) == distribution.size(),
                 "sharding: a cell field needs a 1-d device mesh over the partition's " << distribution.size()
                                                                                         << " ranks");
  CAMBER_REQUIRE(local.rank() >= 1 && local.shape()[0] == distribution.n_local(),
                 "sharding: a cell field's local block has n_local = " << distribution.n_local()
                                                                        << " rows (owned, then ghosts), not "
                                                                        << shape_string(local.shape()));
  Shape global = local.shape();
  global[0] = distribution.n_global_cells();
  auto layout = std::make_shared<CellLayout>();
  layout->distribution = &distribution;
  layout->halo = &halo;
  return {local, global, mesh, {Placement::cells()}, layout};
}

ShardedVar cell_field_like(const Var& local, const ShardedVar& like) {
  CAMBER_REQUIRE(like.cells != nullptr, "sharding: cell_field_like of a tensor that is not a cell field");
  return cell_field(local, like.mesh, *like.cells->distribution, *like.cells->halo);
}

ShardedVar with_ghosts(const ShardedVar& field) {
  CAMBER_REQUIRE(field.cells != nullptr, "sharding: with_ghosts of a tensor that is not a cell field");
  return {ad::halo_exchange(field.local, *field.cells->halo), field.global_shape, field.mesh, field.placements,
          field.cells};
}

ShardedVar redistribute(const ShardedVar& x, const Placements& target) {
  if (x.cells) {
    bool replicate = true;
    for (const Placement& p : target) replicate = replicate && p.is_replicate();
    CAMBER_REQUIRE(replicate, "sharding: a cell field changes layout only to Replicate (full)");
    return {gather_cells(x.local, x.cells), x.global_shape, x.mesh, target, nullptr};
  }
  const DeviceMesh& mesh = *x.mesh;
  check_placements(mesh, target, static_cast<int>(x.global_shape.size()));
  Var v = x.local;
  Placements cur = x.placements;
  const auto split_by_any = [&](int d) {
    for (const Placement& q : cur)
      if (q.is_shard(d)) return true;
    return false;
  };
  // First the gathers (Shard leaves; Shard to Shard by all-to-all), then the reductions (Partial leaves;
  // straight to this rank's chunk where nothing else splits that
  // dimension), then what enters Shard or Partial from Replicate.
  for (int a = 0; a < mesh.ndim(); ++a) {
    Placement& c = cur[static_cast<size_t>(a)];
    const Placement& to = target[static_cast<size_t>(a)];
    if (c == to || !c.is_shard()) continue;
    if (to.is_shard() && !split_by_any(to.dim)) {  // one all-to-all instead of a gather and a chunk
      v = all_to_all(v, c.dim, to.dim, x.mesh, a, x.global_shape[static_cast<size_t>(c.dim)]);
      c = to;
      continue;
    }
    v = all_gather(v, c.dim, x.mesh, a, x.global_shape[static_cast<size_t>(c.dim)]);
    c = Placement::replicate();
  }
  for (int a = 0; a < mesh.ndim(); ++a) {
    Placement& c = cur[static_cast<size_t>(a)];
    const Placement& to = target[static_cast<size_t>(a)];
    if (c == to || !c.is_partial()) continue;
    if (to.is_shard() && !split_by_any(to.dim)) {
      v = reduce_scatter(v, to.dim, x.mesh, a);
      c = to;
    } else {
      v = all_reduce(v, x.mesh, a);
      c = Placement::replicate();
    }
  }
  for (int a = 0; a < mesh.ndim(); ++a) {
    Placement& c = cur[static_cast<size_t>(a)];
    const Placement& to = target[static_cast<size_t>(a)];
    if (c == to) continue;
    if (to.is_shard())
      v = local_chunk(v, to.dim, x.mesh, a);
    else if (to.is_partial())
      v = partial_from_replicate(v, x.mesh, a);
    c = to;
  }
  return {v, x.global_shape, x.mesh, target, nullptr};
}

ShardedVar distribute(const Var& whole, const MeshPtr& mesh, const Placements& placements) {
  CAMBER_REQUIRE(mesh != nullptr, "sharding: no device mesh");
  check_placements(*mesh, placements, whole.rank());
  return redistribute({whole, whole.shape(), mesh, all_replicate(*mesh), nullptr}, placements);
}

ShardedVar from_local(const Var& local, const Shape& global_shape, const MeshPtr& mesh, const Placements& placements) {
  CAMBER_REQUIRE(mesh != nullptr, "sharding: no device mesh");
  check_placements(*mesh, placements, static_cast<int>(global_shape.size()));
  const LocalBlock b = local_block(global_shape, *mesh, placements);
  CAMBER_REQUIRE(local.shape() == b.shape, "sharding: a local block of shape "
                                               << shape_string(local.shape()) << " where the layout "
                                               << to_string(placements) << " of " << shape_string(global_shape)
                                               << " gives this rank " << shape_string(b.shape));
  return {local, global_shape, mesh, placements, nullptr};
}

Tensor local_part(const Tensor& whole, const DeviceMesh& mesh, const Placements& placements) {
  check_placements(mesh, placements, whole.rank());
  const LocalBlock b = local_block(whole.shape(), mesh, placements);
  const std::vector<double> all = whole.to_vector();
  index_t n = 1;
  for (index_t e : b.shape) n *= e;
  std::vector<double> out(static_cast<size_t>(n));
  const size_t r = whole.shape().size();
  Shape strides(r, 1);
  for (size_t i = r; i-- > 1;) strides[i - 1] = strides[i] * whole.shape()[i];
  Shape idx(r, 0);
  for (index_t k = 0; k < n; ++k) {
    index_t src = 0;
    for (size_t i = 0; i < r; ++i) src += (idx[i] + b.offset[i]) * strides[i];
    out[static_cast<size_t>(k)] = all[static_cast<size_t>(src)];
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < b.shape[i]) break;
      idx[i] = 0;
    }
  }
  bool zero = false;
  for (int a = 0; a < mesh.ndim(); ++a)
    if (placements[static_cast<size_t>(a)].is_partial() && mesh.coordinate(a) != 0) zero = true;
  if (zero) std::fill(out.begin(), out.end(), 0.0);
  return Tensor::from_host(b.shape, out);
}

Var full(const ShardedVar& x) { return redistribute(x, all_replicate(*x.mesh)).local; }

ShardedVar add(const ShardedVar& a, const ShardedVar& b) { return elementwise(Binary::add, a, b); }
ShardedVar sub(const ShardedVar& a, const ShardedVar& b) { return elementwise(Binary::sub, a, b); }
ShardedVar mul(const ShardedVar& a, const ShardedVar& b) { return elementwise(Binary::mul, a, b); }
ShardedVar div(const ShardedVar& a, const ShardedVar& b) { return elementwise(Binary::div, a, b); }
ShardedVar maximum(const ShardedVar& a, const ShardedVar& b) { return elementwise(Binary::maximum, a, b); }
ShardedVar minimum(const ShardedVar& a, const ShardedVar& b) { return elementwise(Binary::minimum, a, b); }
ShardedVar pow(const ShardedVar& a, const ShardedVar& b) { return elementwise(Binary::pow, a, b); }

ShardedVar map(const ShardedVar& a, const std::function<Var(const Var&)>& f, bool linear, const std::string& name) {
  ShardedVar x = a;
  if (!linear)
    for (int t = 0; t < x.mesh->ndim(); ++t)
      if (x.placements[static_cast<size_t>(t)].is_partial()) x = relayout(x, t, Placement::replicate(), name.c_str());
  Var y = f(x.local);
  CAMBER_REQUIRE(y.shape() == x.local.shape(), "sharding: " << name << " must keep the shape of its input");
  return {y, x.global_shape, x.mesh, x.placements, x.cells};
}

ShardedVar square(const ShardedVar& a) { return map(a, [](const Var& v) { return ad::square(v); }, false, "square"); }
ShardedVar tanh(const ShardedVar& a) { return map(a, [](const Var& v) { return ad::tanh(v); }, false, "tanh"); }
ShardedVar relu(const ShardedVar& a) { return map(a, [](const Var& v) { return ad::relu(v); }, false, "relu"); }
ShardedVar mul_scalar(const ShardedVar& a, double c) {
  return map(a, [c](const Var& v) { return ad::mul_scalar(v, c); }, true, "mul_scalar");
}

namespace {
// The owned rows of a cell field's local block.
Var owned_rows(const ShardedVar& a) {
  return ad::slice(a.local, 0, 0, a.cells->distribution->n_owned());
}
}  // namespace

ShardedVar sum(const ShardedVar& a, int k) {
  const int r = static_cast<int>(a.global_shape.size());
  CAMBER_REQUIRE(k >= 0 && k < r, "sharding: sum over dimension " << k << " of a tensor with " << r << " dimensions");
  if (a.cells) {
    Shape shape = a.global_shape;
    shape.erase(shape.begin() + k);
    if (k == 0) return {ad::sum(owned_rows(a), 0), shape, a.mesh, {Placement::partial()}, nullptr};
    return {ad::sum(a.local, k), shape, a.mesh, a.placements, a.cells};
  }
  Placements out = a.placements;
  for (Placement& p : out) {
    if (p.is_shard(k))
      p = Placement::partial();  // each rank sums its rows: a pending sum over the axis
    else if (p.is_shard() && p.dim > k)
      p.dim -= 1;
  }
  Shape shape = a.global_shape;
  shape.erase(shape.begin() + k);
  return {ad::sum(a.local, k), shape, a.mesh, out, nullptr};
}

ShardedVar sum(const ShardedVar& a) {
  if (a.cells) return {ad::sum(owned_rows(a)), Shape{}, a.mesh, {Placement::partial()}, nullptr};
  Placements out = a.placements;
  for (Placement& p : out)
    if (p.is_shard()) p = Placement::partial();
  return {ad::sum(a.local), Shape{}, a.mesh, out, nullptr};
}

ShardedVar matmul(const ShardedVar& a0, const ShardedVar& b0) {
  same_mesh(a0, b0, "matmul");
  CAMBER_REQUIRE(a0.global_shape.size() == 2 && b0.global_shape.size() == 2 &&
                     a0.global_shape[1] == b0.global_shape[0],
                 "sharding: matmul of 2-d tensors [m, k] and [k, n]");
  ShardedVar a = a0, b = b0;
  Placements out(a.placements.size());
  const auto taken = [&](int t, int d) {
    for (int u = 0; u < t; ++u)
      if (out[static_cast<size_t>(u)].is_shard(d)) return true;
    return false;
  };
  for (int t = 0; t < a.mesh->ndim(); ++t) {
    for (int attempt = 0;; ++attempt) {
      const Placement pa = a.placements[static_cast<size_t>(t)], pb = b.placements[static_cast<size_t>(t)];
      Placement& o = out[static_cast<size_t>(t)];
      // An output dimension another axis already splits: not this rule.
      const bool rows_free = !taken(t, 0), cols_free = !taken(t, 1);
      if (pa.is_cells() || pb.is_cells()) {
        CAMBER_REQUIRE(pa.is_cells() && pb.is_replicate(),
                       "sharding: matmul of a cell field [cells, k] by a replicated [k, n] only");
        b.local = grad_all_reduce(b.local, b.mesh, t);
        o = pa;
      } else if (pa.is_replicate() && pb.is_replicate()) {
        o = pa;
      } else if (pa.is_shard(0) && pb.is_replicate() && rows_free) {  // rows of a: b applied to every rank's rows
        b.local = grad_all_reduce(b.local, b.mesh, t);
        o = Placement::shard(0);
      } else if (pa.is_replicate() && pb.is_shard(1) && cols_free) {  // columns of b
        a.local = grad_all_reduce(a.local, a.mesh, t);
        o = Placement::shard(1);
      } else if (pa.is_shard(1) && pb.is_shard(0)) {  // the contraction: partial sums
        o = Placement::partial();
      } else if (pa.is_shard(1) && pb.is_replicate() && b.placements.end() == std::find_if(b.placements.begin(), b.placements.end(), [](const Placement& q) { return q.is_shard(0); })) {
        b.local = local_chunk(b.local, 0, b.mesh, t);
        b.placements[static_cast<size_t>(t)] = Placement::shard(0);
        o = Placement::partial();
      } else if (pa.is_replicate() && pb.is_shard(0) && a.placements.end() == std::find_if(a.placements.begin(), a.placements.end(), [](const Placement& q) { return q.is_shard(1); })) {
        a.local = local_chunk(a.local, 1, a.mesh, t);
        a.placements[static_cast<size_t>(t)] = Placement::shard(1);
        o = Placement::partial();
      } else if (pa.is_partial() && pb.is_replicate()) {
        b.local = grad_all_reduce(b.local, b.mesh, t);
        o = pa;
      } else if (pa.is_replicate() && pb.is_partial()) {
        a.local = grad_all_reduce(a.local, a.mesh, t);
        o = pb;
      } else {
        CAMBER_REQUIRE(attempt < 3, "sharding: matmul found no layout");
        if (!pb.is_replicate())
          b = relayout(b, t, Placement::replicate(), "matmul");
        else
          a = relayout(a, t, Placement::replicate(), "matmul");
        continue;
      }
      break;
    }
  }
  return {ad::matmul(a.local, b.local), Shape{a.global_shape[0], b.global_shape[1]}, a.mesh, out, a.cells};
}

namespace {

void no_cells(const ShardedVar& a, const char* op) {
  CAMBER_REQUIRE(a.cells == nullptr, "sharding: " << op << " of a cell field (use its local block)");
}

// a with every mesh axis that splits dimension k made Replicate.
ShardedVar unsplit(const ShardedVar& a, int k, const char* op) {
  ShardedVar x = a;
  for (int t = 0; t < x.mesh->ndim(); ++t)
    if (x.placements[static_cast<size_t>(t)].is_shard(k)) x = relayout(x, t, Placement::replicate(), op);
  return x;
}

}  // namespace

ShardedVar transpose(const ShardedVar& a) {
  no_cells(a, "transpose");
  const int r = static_cast<int>(a.global_shape.size());
  CAMBER_REQUIRE(r >= 2, "sharding: transpose of a tensor with fewer than 2 dimensions");
  Placements out = a.placements;
  for (Placement& p : out)
    if (p.is_shard() && p.dim >= r - 2) p.dim = p.dim == r - 1 ? r - 2 : r - 1;
  Shape shape = a.global_shape;
  std::swap(shape[static_cast<size_t>(r - 1)], shape[static_cast<size_t>(r - 2)]);
  return {ad::transpose(a.local), shape, a.mesh, out, nullptr};
}

ShardedVar reshape(const ShardedVar& a, const Shape& shape) {
  no_cells(a, "reshape");
  index_t n = 1, m = 1;
  for (index_t e : shape) n *= e;
  for (index_t e : a.global_shape) m *= e;
  CAMBER_REQUIRE(n == m, "sharding: reshape of " << shape_string(a.global_shape) << " to " << shape_string(shape));
  ShardedVar x = a;
  const bool rows_stay = !shape.empty() && !a.global_shape.empty() && shape[0] == a.global_shape[0];
  for (int t = 0; t < x.mesh->ndim(); ++t) {
    const Placement p = x.placements[static_cast<size_t>(t)];
    if (p.is_shard() && !(p.dim == 0 && rows_stay)) x = relayout(x, t, Placement::replicate(), "reshape");
  }
  Shape local = shape;
  if (rows_stay) local[0] = x.local.shape()[0];
  return {ad::reshape(x.local, local), shape, x.mesh, x.placements, nullptr};
}

ShardedVar slice(const ShardedVar& a, int dim, index_t start, index_t stop) {
  no_cells(a, "slice");
  CAMBER_REQUIRE(dim >= 0 && dim < static_cast<int>(a.global_shape.size()) && 0 <= start && start <= stop &&
                     stop <= a.global_shape[static_cast<size_t>(dim)],
                 "sharding: slice [" << start << ", " << stop << ") of dimension " << dim << " of "
                                     << shape_string(a.global_shape));
  const ShardedVar x = unsplit(a, dim, "slice");
  Shape shape = x.global_shape;
  shape[static_cast<size_t>(dim)] = stop - start;
  return {ad::slice(x.local, dim, start, stop), shape, x.mesh, x.placements, nullptr};
}

ShardedVar concat(const std::vector<ShardedVar>& parts, int dim) {
  CAMBER_REQUIRE(!parts.empty(), "sharding: concat of nothing");
  std::vector<ShardedVar> x;
  for (const ShardedVar& p : parts) {
    no_cells(p, "concat");
    same_mesh(parts.front(), p, "concat");
    x.push_back(unsplit(p, dim, "concat"));
  }
  // Every part in the first one's layout (after the unsplit).
  Placements target = x.front().placements;
  index_t total = 0;
  ad::Vars locals;
  for (ShardedVar& p : x) {
    if (p.placements != target) {
      logging::debug("sharding: concat redistributes " + to_string(p.placements) + " -> " + to_string(target));
      p = redistribute(p, target);
    }
    locals.push_back(p.local);
    total += p.global_shape[static_cast<size_t>(dim)];
  }
  Shape shape = x.front().global_shape;
  shape[static_cast<size_t>(dim)] = total;
  return {ad::concat(locals, dim), shape, x.front().mesh, target, nullptr};
}

ShardedVar index_select(const ShardedVar& a, int dim, const Tensor& index) {
  no_cells(a, "index_select");
  CAMBER_REQUIRE(dim >= 0 && dim < static_cast<int>(a.global_shape.size()) && index.rank() == 1,
                 "sharding: index_select of dimension " << dim << " of " << shape_string(a.global_shape)
                                                         << " by a 1-d index");
  const ShardedVar x = unsplit(a, dim, "index_select");
  Shape shape = x.global_shape;
  shape[static_cast<size_t>(dim)] = index.dim(0);
  return {ad::index_select(x.local, dim, index), shape, x.mesh, x.placements, nullptr};
}

ShardedVar mean(const ShardedVar& a, int k) {
  CAMBER_REQUIRE(k >= 0 && k < static_cast<int>(a.global_shape.size()),
                 "sharding: mean over dimension " << k << " of " << shape_string(a.global_shape));
  return mul_scalar(sum(a, k), 1.0 / static_cast<double>(a.global_shape[static_cast<size_t>(k)]));
}

ShardedVar max(const ShardedVar& a, int k) {
  no_cells(a, "max");
  CAMBER_REQUIRE(k >= 0 && k < static_cast<int>(a.global_shape.size()),
                 "sharding: max over dimension " << k << " of " << shape_string(a.global_shape));
  ShardedVar x = unsplit(a, k, "max");
  for (int t = 0; t < x.mesh->ndim(); ++t)
    if (x.placements[static_cast<size_t>(t)].is_partial()) x = relayout(x, t, Placement::replicate(), "max");
  Placements out = x.placements;
  for (Placement& p : out)
    if (p.is_shard() && p.dim > k) p.dim -= 1;
  Shape shape = x.global_shape;
  shape.erase(shape.begin() + k);
  return {ad::max(x.local, k), shape, x.mesh, out, nullptr};
}

}  // namespace camber::shard
