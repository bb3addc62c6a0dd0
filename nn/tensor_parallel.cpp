#include <camber/nn/tensor_parallel.hpp>

#include <sstream>

#include <camber/core/error.hpp>
#include <camber/shard/planner.hpp>

namespace camber::nn {

TensorParallelMlp::TensorParallelMlp(const NetworkSpec& spec, const Module& whole, shard::MeshPtr model_axis)
    : spec_(spec), mesh_(std::move(model_axis)) {
  CAMBER_REQUIRE(spec.kind == "mlp" && spec.dtype == DType::float64,
                 "TensorParallelMlp: a float64 \"mlp\" network, not \"" << spec.kind << "\"");
  CAMBER_REQUIRE(mesh_ && mesh_->ndim() == 1, "TensorParallelMlp: a 1-d device mesh (the model axis)");
  const auto named = whole.named_parameters();
  const size_t layers = spec.hidden.size() + 1;
  CAMBER_REQUIRE(named.size() == 2 * layers, "TensorParallelMlp: the network has " << named.size()
                                                                                  << " parameters, an mlp with bias "
                                                                                  << 2 * layers);
  for (size_t i = 0; i < layers; ++i) {
    for (int k = 0; k < 2; ++k) {
      const auto& [name, var] = named[2 * i + static_cast<size_t>(k)];
      const shard::Placements p =
          k == 0 ? shard::dense_weight_placements(i, 1, 0) : shard::dense_bias_placements(i, 1, 0);
      shapes_.push_back(var.shape());
      placements_.push_back(p);
      std::string flat = name;  // "0.weight" -> "0_weight": one level of names
      for (char& ch : flat)
        if (ch == '.') ch = '_';
      register_parameter(flat, shard::local_part(var.value(), *mesh_, p));
    }
  }
}

ad::Var TensorParallelMlp::forward(const ad::Var& x) const {
  const shard::ShardedVar h0 = shard::distribute(x, mesh_, {shard::Placement::replicate()});
  std::vector<shard::ShardedVar> params;
  for (size_t k = 0; k < shapes_.size(); ++k)
    params.push_back(shard::from_local(param(k), shapes_[k], mesh_, placements_[k]));
  const Activation a = spec_.activation;
  const shard::ShardedVar h = shard::dense_forward(h0, params, [a](const shard::ShardedVar& v) {
    return shard::map(v, [a](const ad::Var& u) { return activate(a, u); }, a == Activation::identity,
                      activation_name(a));
  });
  return shard::full(h);
}

std::string TensorParallelMlp::describe() const {
  std::ostringstream s;
  s << "TensorParallelMlp(" << spec_.in;
  for (index_t w : spec_.hidden) s << " -> " << w;
  s << " -> " << spec_.out << ", " << activation_name(spec_.activation) << ", over " << mesh_->describe() << ")";
  return s.str();
}

std::vector<Tensor> TensorParallelMlp::whole_parameters() const {
  std::vector<Tensor> out;
  const ad::Vars p = parameters();
  for (size_t k = 0; k < p.size(); ++k)
    out.push_back(shard::full(shard::from_local(p[k].detach(), shapes_[k], mesh_, placements_[k])).value());
  return out;
}

}  // namespace camber::nn
