#include <camber/solvers/aero/airfoil_sampler.hpp>

#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include <camber/core/enum_names.hpp>

#include <camber/core/error.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>

namespace camber::solvers::aero {

void validate_airfoil_sample_space(const AirfoilSampleSpace& space, double bound,
                                   const AirfoilSampleSpaceReject& reject, const std::string& bound_name) {
  const std::vector<double>& range = space.shape;
  if (range.empty()) return;
  if (range.size() != 2) reject("shape", "a shape range is [low, high]");
  if (!(range[0] < range[1]))
    reject("shape", CAMBER_MSG("[" << range[0] << ", " << range[1] << "] is no range (low < high)"));
  if (range[0] < -bound || range[1] > bound)
    reject("shape", CAMBER_MSG("[" << range[0] << ", " << range[1] << "] lies outside [-" << bound_name
                                   << ", " << bound_name << "] = [" << -bound << ", " << bound << "]"));
}

double force_output(const euler::Forces& forces, const std::string& name) {
  if (name == "CL") return forces.cl;
  if (name == "CD") return forces.cd;
  if (name == "CM") return forces.cm;
  return std::numeric_limits<double>::quiet_NaN();
}

AirfoilSampler::AirfoilSampler(mesh::DistributedMesh dm, const AirfoilSampleSpace& space,
                               AirfoilDesignSettings settings, std::unique_ptr<design::ShapeParametrization> shape)
    : dm_(std::move(dm)), settings_(std::move(settings)) {
  validate_airfoil_sample_space(space, settings_.bound, [](const std::string& member, const std::string& what) {
    throw_bad_input("airfoil sampler: " + member + ": " + what);
  });
  const std::vector<double>& range = space.shape;
  ranges_ = {{space.mach[0], space.mach[1]}, {space.alpha_deg[0], space.alpha_deg[1]}};
  inputs_ = {{"mach", "alpha_deg"}, {"", "deg"}};
  outputs_ = {{"CL", "CD", "CM"}, {"", "", ""}};
  if (!space.with_gradients()) return;
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

std::string AirfoilSampler::identity(const std::string& parametrization) const {
  std::ostringstream s;
  s.precision(17);
  s << "mach=" << ranges_[0][0] << "," << ranges_[0][1] << " alpha_deg=" << ranges_[1][0] << ","
    << ranges_[1][1];
  if (n_shape_ > 0)
    s << " shape=" << ranges_.back()[0] << "," << ranges_.back()[1] << " shape_variables=" << n_shape_
      << " parametrization=" << parametrization;
  if (gradients()) s << " gradients=1";
  const euler::SpatialOptions& spatial = settings_.flow.spatial;
  s << " cells=" << dm_.n_global_cells() << " order=" << spatial.order
    << " limiter=" << enum_name(euler::limiter_kind_names, spatial.limiter);
  return s.str();
}

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
