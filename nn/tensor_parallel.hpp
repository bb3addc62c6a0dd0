/// @file
/// camber::nn::TensorParallelMlp — a multilayer perceptron (make_network's
/// "mlp") whose layers are split over the ranks of a device mesh axis, as a
/// Module, so nn::Trainer and the element-wise optimizers train it
/// unchanged.
///
/// Layers alternate column-parallel (weight split by output columns, bias
/// split) and row-parallel (weight split by input rows, partial sums
/// reduced after the layer), as in Megatron-LM; the forward pass is written
/// with the sharded ops of shard/sharded_var.hpp, so the all-reduces are
/// ops of the graph and gradients come out as this rank's blocks of the
/// whole gradient. Each rank holds only its blocks (parameters()).
///
/// Data and model parallel together: build a {data: d, model: m} mesh,
/// give this module the "model" axis and the Trainer the "data" axis's
/// communicator; the Trainer then sums gradients over "data" only and
/// every rank of a data group holds the same rows:
///
/// @code
///   auto grid = shard::DeviceMesh::create(comm, {{"data", 2}, {"model", 2}});
///   auto model_axis = shard::DeviceMesh::create(grid->axis_comm(1), {{"model", 2}});
///   nn::Rng rng(seed);
///   auto whole = nn::make_network(spec, rng);                   // the same on every rank
///   nn::TensorParallelMlp net(spec, *whole, model_axis);         // keeps this rank's blocks
///   nn::Adam adam(net.parameters(), {});
///   nn::Trainer trainer(net, adam, options, grid->axis_comm(0));
///   trainer.fit(nn::shard_of(x, y, grid->axis_comm(0)));
///   std::vector<Tensor> weights = net.whole_parameters();        // collective; make_network's order
/// @endcode
///
/// Exact for the element-wise optimizers (SGD, Adam, AdamW): the update of
/// a block is the block of the whole update. Not for L-BFGS, and not with
/// gradient clipping (its norm would be this rank's blocks'); both are
/// refused by the trainer's caller (apps), not here. tests/nn checks the
/// loss curve and the final weights against the unsplit network trained on
/// one rank, at 1, 2 and 4 ranks.
#pragma once

#include <string>
#include <vector>

#include <camber/nn/layers.hpp>
#include <camber/nn/module.hpp>
#include <camber/nn/surrogate.hpp>
#include <camber/shard/sharded_var.hpp>

namespace camber::nn {

class TensorParallelMlp : public Module {
 public:
  /// `whole`: make_network(spec)'s network (kind "mlp", float64), the same
  /// on every rank of `model_axis` (a 1-d device mesh). Collective.
  TensorParallelMlp(const NetworkSpec& spec, const Module& whole, shard::MeshPtr model_axis);
  /// x: this data group's rows {rows, in}, the same on every rank of the
  /// model axis; returns the whole output {rows, out} on each of them.
  ad::Var forward(const ad::Var& x) const override;
  std::string describe() const override;
  /// The whole network's parameters (gathered over the model axis), in the
  /// order of make_network(spec)'s parameters(). Collective.
  std::vector<Tensor> whole_parameters() const;

 private:
  NetworkSpec spec_;
  shard::MeshPtr mesh_;
  std::vector<Shape> shapes_;
  std::vector<shard::Placements> placements_;
};

}  // namespace camber::nn
