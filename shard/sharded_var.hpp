/// @file
/// camber::shard::ShardedVar — a tensor of the graph laid out over a device
/// mesh, and the ops on it: each op looks at its inputs' placements, picks
/// the output's placement by its propagation rule, runs the ordinary op on
/// the local blocks and inserts the communication the rule needs (as ops of
/// the graph, shard/collectives.hpp), so ad::grad, ad::jvp and ad::hvp of a
/// sharded program work unchanged.
///
/// @code
///   auto mesh = shard::DeviceMesh::create(comm, {{"data", 2}, {"model", 2}});
///   using shard::Placement;
///   ad::Var x = ad::constant(batch), W = ad::variable(weights);      // whole tensors, every rank
///   shard::ShardedVar xs = shard::distribute(x, mesh, {Placement::shard(0), Placement::replicate()});
///   shard::ShardedVar Ws = shard::distribute(W, mesh, {Placement::replicate(), Placement::shard(1)});
///   shard::ShardedVar h = shard::matmul(xs, Ws);        // [Shard(0), Shard(1)]: no communication
///   ad::Var loss = shard::full(shard::sum(shard::square(h)));
///   ad::Var dW = ad::grad(loss, {W})[0];                  // the whole gradient, every rank
/// @endcode
///
/// Propagation rules, per mesh axis (S = Shard, R = Replicate, P = Partial):
/// @code
///   element-wise a (op) b    R,R -> R;  S(d),S(d) -> S(d);  S(d),R -> S(d) (b's chunk, or b
///                            broadcast and its gradient summed over the axis);  P,P -> P for
///                            + and -;  P,R -> P for * and a / R;  otherwise both -> R
///   unary f(a)               R -> R;  S(d) -> S(d);  P -> P if f is linear, else P -> R first
///   sum, mean over dim k     S(k) -> P;  S(d) -> S(d or d-1);  R -> R;  P -> P
///   max over dim k           S(k) -> R first;  P -> R first;  S(d) -> S(d or d-1)
///   maximum, minimum, pow    as element-wise, but Partial -> R first
///   matmul a [m,k] b [k,n]   S(0),R -> S(0);  R,S(1) -> S(1);  S(1),S(0) -> P;  R,R -> R;
///                            P,R -> P;  R,P -> P;  otherwise b (then a) -> R
///   transpose                S(d) -> S(swapped d);  R -> R;  P -> P
///   reshape                  S(0) -> S(0) if the rows stay;  R, P unchanged;  otherwise -> R
///   slice / concat /         S(d != k), R, P unchanged;  S(k) -> R first
///   index_select along k
/// @endcode
/// A replicated input that a rank-dependent computation uses gets
/// grad_all_reduce on that axis (its gradient is summed over the ranks).
/// Where no rule applies the inputs are redistributed; each insertion is
/// logged at debug level ("sharding: ..."), so a program can be checked for
/// hidden communication.
///
/// Results equal the single-rank program's to round-off (tests/shard, 1, 2
/// and 4 ranks, 1-d and 2 x 2 meshes, even and uneven splits).
#pragma once

#include <functional>
#include <string>

#include <camber/autodiff/variable.hpp>
#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/shard/collectives.hpp>
#include <camber/shard/device_mesh.hpp>

namespace camber::shard {

/// The partition behind a Cells placement: which global cell each local
/// row is, and the halo exchange that fills ghost rows (both must outlive
/// every tensor and graph that uses them).
struct CellLayout {
  const par::CellDistribution* distribution = nullptr;
  par::HaloExchange* halo = nullptr;
};

struct ShardedVar {
  ad::Var local;            ///< this rank's block
  Shape global_shape;
  MeshPtr mesh;
  Placements placements;    ///< one per mesh axis
  std::shared_ptr<const CellLayout> cells;  ///< for a Cells placement
};

/// This rank's block `local` of a tensor of `global_shape` laid out as
/// `placements` (a parameter held only in shards: its gradient is this
/// rank's block of the whole gradient for Shard axes, the whole gradient
/// for Replicate ones). The block's shape is checked; no communication.
ShardedVar from_local(const ad::Var& local, const Shape& global_shape, const MeshPtr& mesh,
                      const Placements& placements);
/// The block of a whole tensor this rank holds under `placements` (no
/// graph, no communication; Partial axes keep the whole value on their
/// first rank and zeros elsewhere).
Tensor local_part(const Tensor& whole, const DeviceMesh& mesh, const Placements& placements);

/// A whole tensor, the same on every rank, laid out as `placements` (its
/// gradient is the whole gradient, on every rank).
ShardedVar distribute(const ad::Var& whole, const MeshPtr& mesh, const Placements& placements);
/// Changes the layout (all_gather, local_chunk, all_reduce, reduce_scatter,
/// all_to_all and partial_from_replicate as needed, one mesh axis at a
/// time).
ShardedVar redistribute(const ShardedVar& x, const Placements& target);
/// The whole tensor on every rank.
ad::Var full(const ShardedVar& x);

/// Mesh fields are sharded tensors too. A cell field over a partitioned
/// mesh is laid out as Cells on a 1-d device mesh over the partition's
/// communicator: its local block has the partition's n_local rows (owned
/// cells, then ghosts), its global shape n_global_cells rows. The layout's
/// communication op is the halo exchange (with_ghosts; its VJP sends ghost
/// contributions home, autodiff/distributed_ops.hpp). A cotangent of a
/// cell field holds, in its ghost rows too, contributions to be summed at
/// the owners. Rules: element-wise ops of two cell fields act on every
/// local row; a replicated operand broadcast along the cells gets
/// grad_all_reduce; a sum over dimension 0 sums the owned rows (Partial);
/// full() gathers the owned rows by global id.
ShardedVar cell_field(const ad::Var& local, const MeshPtr& mesh, const par::CellDistribution& distribution,
                      par::HaloExchange& halo);
/// The same layout as `like`, for a local block computed by the caller
/// (a flux kernel on like.local, for instance).
ShardedVar cell_field_like(const ad::Var& local, const ShardedVar& like);
/// Ghost rows filled from their owners.
ShardedVar with_ghosts(const ShardedVar& field);

ShardedVar add(const ShardedVar& a, const ShardedVar& b);
ShardedVar sub(const ShardedVar& a, const ShardedVar& b);
ShardedVar mul(const ShardedVar& a, const ShardedVar& b);
ShardedVar div(const ShardedVar& a, const ShardedVar& b);
/// Nonlinear element-wise ops: a Partial operand is reduced first.
ShardedVar maximum(const ShardedVar& a, const ShardedVar& b);
ShardedVar minimum(const ShardedVar& a, const ShardedVar& b);
ShardedVar pow(const ShardedVar& a, const ShardedVar& b);
/// f applied to the local block; `linear` when f(x + y) = f(x) + f(y)
/// (then a Partial input stays Partial).
ShardedVar map(const ShardedVar& a, const std::function<ad::Var(const ad::Var&)>& f, bool linear,
               const std::string& name);
ShardedVar square(const ShardedVar& a);
ShardedVar tanh(const ShardedVar& a);
ShardedVar relu(const ShardedVar& a);
ShardedVar mul_scalar(const ShardedVar& a, double c);
/// Sum over dimension k (removed), or over all elements (shape {}).
ShardedVar sum(const ShardedVar& a, int k);
ShardedVar sum(const ShardedVar& a);
/// sum(a, k) / length of dimension k.
ShardedVar mean(const ShardedVar& a, int k);
/// Maximum over dimension k (removed): along a split or Partial layout the
/// operand is gathered or reduced first (a max is no sum).
ShardedVar max(const ShardedVar& a, int k);
/// 2-d matrix product.
ShardedVar matmul(const ShardedVar& a, const ShardedVar& b);

/// Shape ops. transpose swaps the last two dimensions (a split moves with
/// its dimension). reshape keeps the layout when every split dimension is
/// dimension 0 and keeps its length (the rows stay whole; trailing
/// dimensions may be merged or split); otherwise those axes go to
/// Replicate first. slice and concat along an unsplit dimension act on the
/// local blocks; along a split one they gather it first. Partial stays
/// Partial (all four are linear).
ShardedVar transpose(const ShardedVar& a);
ShardedVar reshape(const ShardedVar& a, const Shape& shape);
ShardedVar slice(const ShardedVar& a, int dim, index_t start, index_t stop);
ShardedVar concat(const std::vector<ShardedVar>& parts, int dim);
/// Entries `index` (int64) of dimension dim, as ad::index_select; along a
/// split dimension it is gathered first.
ShardedVar index_select(const ShardedVar& a, int dim, const Tensor& index);

}  // namespace camber::shard
