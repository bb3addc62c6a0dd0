/// @file
/// Choosing how to shard a dense network: a cost model of data-parallel,
/// tensor-parallel and combined plans, calibrated by a short run on the
/// machine, and ShardedMlp, the network trained under a plan.
///
/// A plan for R ranks is a device mesh {data: d, model: m}, d m = R: the
/// batch is split over "data"; over "model" the layers alternate between
/// column-parallel (weights split by output, bias split) and row-parallel
/// (weights split by input, a partial sum reduced after the layer), as in
/// Megatron-LM, so each pair of layers costs one all-reduce of activations
/// forward and one backward. Every parameter's gradient is summed over
/// "data".
///
/// @code
///   shard::MlpShape net{{784, 1024, 1024, 1024, 1024, 10}, 256};
///   shard::Calibration c = shard::calibrate(comm);                  // collective, ~0.1 s
///   shard::PlanEstimate best = shard::choose_plan(net, comm_size(comm), c, 64 << 20);  // 64 MiB per rank
///   auto mesh = shard::DeviceMesh::create(comm, best.plan.axes());
///   shard::ShardedMlp mlp(net, best.plan, mesh, 1);
///   double loss = mlp.step(X, Y, 0.1);                                // one SGD step
/// @endcode
///
/// Cost model per step and rank (all float64):
/// @code
///   compute  6 B sum_i w_(i-1) w_i / (d m) flops / calibrated flop rate
///   comm     sum over all-reduces of (alpha + 2 (p-1)/p bytes / beta), p the axis size:
///              activations B/d x w_i after each row-parallel layer (forward) and
///              B/d x w_(i-1) before each column-parallel layer but the first (backward);
///              every parameter block's gradient over "data"
///   memory   parameter blocks and their gradients, plus the activations kept for the
///            backward pass (B/d x w_i per layer, split by m after column-parallel layers)
/// @endcode
/// The planner evaluates every factorization d m = R, keeps those whose
/// memory fits the limit, and picks the smallest predicted step time; when
/// none fits, a bad_input error names the largest tensor (its size per
/// rank under the most frugal plan) and the limit.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <camber/shard/sharded_var.hpp>

namespace camber::shard {

/// A dense tanh network: widths[0] inputs, widths.back() outputs, a batch.
struct MlpShape {
  std::vector<index_t> widths;
  index_t batch = 0;
};

struct MlpPlan {
  int data = 1, model = 1;
  std::vector<std::pair<std::string, int>> axes() const { return {{"data", data}, {"model", model}}; }
  std::string name() const;  ///< "data 4 x model 1" etc.
};

/// Rates measured on this machine and communicator.
struct Calibration {
  double flops_per_second = 1e9;     ///< of the engine's matmul, one rank
  double bytes_per_second = 1e9;     ///< all-reduce bandwidth
  double latency_seconds = 1e-5;     ///< all-reduce of 8 bytes
};
/// Collective over comm: times the engine's matmul and MPI all-reduces of 8
/// bytes and 1 MiB (medians of a few repetitions).
Calibration calibrate(MPI_Comm comm);

struct PlanEstimate {
  MlpPlan plan;
  double compute_seconds = 0.0, comm_seconds = 0.0;
  double step_seconds() const { return compute_seconds + comm_seconds; }
  std::int64_t comm_bytes = 0;       ///< sent per rank per step (the ring all-reduce's 2 (p-1)/p)
  std::int64_t memory_bytes = 0;     ///< per rank
  std::string largest_tensor;        ///< the largest parameter block, e.g. "W2 [1024 x 1024]"
  std::int64_t largest_bytes = 0;    ///< its bytes per rank under this plan
  bool fits = true;
};

/// Every plan for `ranks`, in order of d.
std::vector<PlanEstimate> estimate_plans(const MlpShape& net, int ranks, const Calibration& c,
                                         std::int64_t memory_limit_bytes);
/// The fitting plan with the smallest predicted step time.
PlanEstimate choose_plan(const MlpShape& net, int ranks, const Calibration& c, std::int64_t memory_limit_bytes);

/// The Megatron layouts of layer `layer` of a dense network over axis
/// `axis` of a mesh of `ndim` axes (the other axes replicated): even layers
/// column-parallel (weight Shard(1), bias Shard(0)), odd layers
/// row-parallel (weight Shard(0), bias replicated).
Placements dense_weight_placements(size_t layer, int ndim, int axis);
Placements dense_bias_placements(size_t layer, int ndim, int axis);

/// The forward pass of a dense network on sharded values: h <- h W_i + b_i
/// for each layer, `activation` between layers (not after the last);
/// `params` is W_0, b_0, W_1, b_1, ... in the layouts above. The one
/// implementation of the Megatron MLP: ShardedMlp and
/// nn::TensorParallelMlp (nn/tensor_parallel.hpp) both call it.
ShardedVar dense_forward(ShardedVar h, const std::vector<ShardedVar>& params,
                         const std::function<ShardedVar(const ShardedVar&)>& activation);

/// The network under a plan, its parameters held only as this rank's
/// blocks, trained by plain SGD on the loss 0.5 / B sum (f(X) - Y)^2.
/// Why this and nn::TensorParallelMlp: this is the planner's measurement
/// harness on a data x model mesh whose parameters are drawn block by
/// block (no rank ever holds a whole weight, so plans that only fit
/// sharded can be run); TensorParallelMlp is the Module that nn::Trainer
/// trains, split from a whole network. Both run dense_forward.
class ShardedMlp {
 public:
  /// `mesh` must be plan.axes(); weights are drawn (the same whole
  /// tensors on every plan and rank count) from `seed`.
  ShardedMlp(MlpShape net, MlpPlan plan, MeshPtr mesh, unsigned seed);
  /// One step on the whole batch X [B, w_0], Y [B, w_L] (the same on
  /// every rank); returns the loss before the update. Collective.
  double step(const Tensor& X, const Tensor& Y, double learning_rate);
  /// Bytes of this rank's parameter blocks.
  std::int64_t parameter_bytes() const;
  const MlpPlan& plan() const noexcept { return plan_; }

 private:
  MlpShape net_;
  MlpPlan plan_;
  MeshPtr mesh_;
  std::vector<Shape> shapes_;           // W1, b1, W2, b2, ...
  std::vector<Placements> placements_;  // the same order
  ad::Vars params_;                     // local blocks
};

}  // namespace camber::shard
