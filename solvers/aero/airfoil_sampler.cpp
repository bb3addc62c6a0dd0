#include <camber/solvers/aero/airfoil_sampler.hpp>

#include <string>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>

namespace camber::solvers::aero {

AirfoilSampler::AirfoilSampler(mesh::DistributedMesh dm, const AirfoilSampleSpace& space,
                               AirfoilDesignSettings settings, std::unique_ptr<design::ShapeParametrization> shape)
    : dm_(std::move(dm)), settings_(std::move(settings)) {
  const std::vector<double>& range = space.shape;
  CAMBER_INPUT_REQUIRE(range.empty() || range.size() == 2, "airfoil sampler: a shape range is [low, high]");
  if (!range.empty()) {
    CAMBER_INPUT_REQUIRE(range[0] < range[1], "airfoil sampler: [" << range[0] << ", " << range[1]
                                                                   << "] is no range (low < high)");
    CAMBER_INPUT_REQUIRE(range[0] >= -settings_.bound && range[1] <= settings_.bound,
                         "airfoil sampler: [" << range[0] << ", " << range[1] << "] lies outside [-bound, bound] = ["
                                              << -settings_.bound << ", " << settings_.bound << "]");
  }
  ranges_ = {{space.mach[0], space.mach[1]}, {space.alpha_deg[0], space.alpha_deg[1]}};
  inputs_ = {{"mach", "alpha_deg"}, {"", "deg"}};
  outputs_ = {{"CL", "CD", "CM"}, {"", "", ""}};
  if (!space.gradients && range.empty()) return;
  CAMBER_INPUT_REQUIRE(shape != nullptr, "airfoil sampler: gradients need the wall's parametrization");
  if (!range.empty()) {
    n_shape_ = static_cast<int>(shape->n_design());
    for (int k = 0; k < n_shape_; ++k) {
      ranges_.push_back({range[0], range[1]});
      inputs_.names.push_back("shape_" + std::to_string(k));
      inputs_.units.push_back("chord");
    }
    outputs_.names.push_back("t_max");
    outputs_.units.push_back("chord");
  }
  AirfoilDesignSettings d = settings_;
  d.thickness_fraction = 0.0;  // sampling evaluates no constraints
  design_ = std::make_unique<AirfoilDesign>(dm_, std::move(shape), d);
}

AirfoilSampler::~AirfoilSampler() = default;

FlowSample AirfoilSampler::operator()(const std::vector<double>& x) {
  CAMBER_INPUT_REQUIRE(x.size() == ranges_.size(),
                       "airfoil sampler: " << x.size() << " inputs, the space has " << ranges_.size());
  FlowSample r;
  if (!design_) {
    euler::FlowConditions flow = settings_.flow.flow;
    flow.mach = x[0];
    flow.alpha_deg = x[1];
    const euler::SteadyFlowSettings& f = settings_.flow;
    euler::Discretization disc(dm_, flow, f.conditions, f.scheme, f.spatial);
    Tensor U = disc.free_stream_field();
    const euler::SteadyResult s = euler::solve_steady(disc, U, f.steady, {});
    r.outputs = {s.forces.cl, s.forces.cd, s.forces.cm};
    r.converged = s.converged;
    r.iterations = s.iterations;
    return r;
  }
  std::vector<double> a(static_cast<size_t>(design_->n_design()), 0.0);
  for (int k = 0; k < n_shape_; ++k) a[static_cast<size_t>(k)] = x[static_cast<size_t>(2 + k)];
  const DesignSample s = design_->sample(a, x[0], x[1]);
  // The problem's order is (shape.., mach, alpha); the inputs' (mach,
  // alpha, shape..).
  const size_t nd = a.size();
  for (size_t o = 0; o < outputs_.names.size(); ++o) {
    const std::vector<double>& g = s.gradients[o];
    r.outputs.push_back(s.values[o]);
    r.gradients.push_back(g[nd]);
    r.gradients.push_back(g[nd + 1]);
    for (int k = 0; k < n_shape_; ++k) r.gradients.push_back(g[static_cast<size_t>(k)]);
  }
  r.converged = true;
  r.iterations = s.newton_iterations;
  return r;
}

}  // namespace camber::solvers::aero
