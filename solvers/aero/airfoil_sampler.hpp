/// @file
/// camber::solvers::aero airfoil sampler — one sample of a design of
/// experiments over an airfoil's flows: CL, CD, CM at an input point
/// (Mach number, angle of attack and, optionally, the shape variables of a
/// parametrization), with, on request, their derivatives in every input
/// from the adjoint (AirfoilDesign::sample) and the largest thickness as a
/// fourth output when the shape varies. What `camber sample` solves for
/// each point of its campaign (nn::io::SampleCampaign), as one call.
///
/// @code
///   aero::AirfoilSampleSpace space;            // M in [0.3, 0.6], alpha in [-2, 4] deg
///   space.gradients = true;
///   aero::AirfoilSampler sampler(dm, space, settings, std::move(parametrization));  // collective
///   const aero::FlowSample s = sampler({0.5, 1.0});   // outputs CL, CD, CM; gradients 3 x 2
///   // sampler.inputs().names: mach, alpha_deg[, shape_0 ..]
/// @endcode
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <camber/design/airfoil_wall.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/nn/normalization.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>

namespace camber::solvers::aero {

struct AirfoilSampleSpace {
  std::array<double, 2> mach{0.3, 0.6};       ///< [low, high]
  std::array<double, 2> alpha_deg{-2.0, 4.0}; ///< [low, high], degrees
  /// [low, high] of every shape variable (within +-bound), or empty: the
  /// shape stays. A varied shape implies gradients.
  std::vector<double> shape;
  bool gradients = false;
  /// Whether the samples carry gradients: asked for, or implied by a
  /// varied shape (the sampler then needs the wall's parametrization).
  bool with_gradients() const noexcept { return gradients || !shape.empty(); }
};

/// Told the member of AirfoilSampleSpace ("shape") and what is wrong;
/// must throw.
using AirfoilSampleSpaceReject = std::function<void(const std::string& member, const std::string& what)>;
/// Checks the shape range against `bound`, the design variables' bound
/// (AirfoilDesignSettings::bound): empty, or [low, high] with low < high
/// inside [-bound, bound]; `bound_name` names the bound in the message (a
/// deck its key). The first fault goes to `reject`.
void validate_airfoil_sample_space(const AirfoilSampleSpace& space, double bound,
                                   const AirfoilSampleSpaceReject& reject,
                                   const std::string& bound_name = "bound");

/// One sample: outputs CL, CD, CM[, t_max]; with gradients, d output_o /
/// d input_i at gradients[o * n_inputs + i].
struct FlowSample {
  std::vector<double> outputs, gradients;
  bool converged = false;
  int iterations = 0;  ///< Newton steps of the flow
};

/// The value of the sampler's output `name` in a flow's `forces`: CL, CD or
/// CM (the names of AirfoilSampler::outputs()); NaN for any other name
/// (t_max is the shape's, not the flow's). What the flow solver's re-check
/// of a surrogate trained on the samples compares.
double force_output(const euler::Forces& forces, const std::string& name);

class AirfoilSampler {
 public:
  /// `settings`: the flow (boundary conditions, scheme, solver), and for
  /// gradients or a varied shape the design's deformation and bound;
  /// `shape`: the wall's parametrization (needed then, else may be null).
  /// bad_input for a space validate_airfoil_sample_space() refuses (naming
  /// the member), or gradients without a parametrization. Collective over
  /// dm's communicator.
  AirfoilSampler(mesh::DistributedMesh dm, const AirfoilSampleSpace& space, AirfoilDesignSettings settings,
                 std::unique_ptr<design::ShapeParametrization> shape);
  ~AirfoilSampler();

  const nn::Columns& inputs() const noexcept { return inputs_; }
  const nn::Columns& outputs() const noexcept { return outputs_; }
  /// [low, high] per input, in inputs()' order.
  const std::vector<std::array<double, 2>>& ranges() const noexcept { return ranges_; }
  int n_shape() const noexcept { return n_shape_; }
  bool gradients() const noexcept { return design_ != nullptr; }
  /// What the samples depend on besides the campaign's design, for a
  /// record's identity (nn::io::SampleCampaignSettings::identity): "mach=
  /// low,high alpha_deg=low,high", with shape variables " shape=low,high
  /// shape_variables=n parametrization=<parametrization>", with gradients
  /// " gradients=1", then " cells=<global cells> order=<order>
  /// limiter=<limiter>" (reals to 17 digits).
  std::string identity(const std::string& parametrization) const;

  /// The sample at x (inputs()' order). Collective; the flow from free
  /// stream without gradients (not converged: converged false), else the
  /// design problem's flow warm-started from the last sample (a failure
  /// throws camber::Error, as AirfoilDesign::sample).
  FlowSample operator()(const std::vector<double>& x);

 private:
  mesh::DistributedMesh dm_;
  AirfoilDesignSettings settings_;
  std::unique_ptr<AirfoilDesign> design_;
  nn::Columns inputs_, outputs_;
  std::vector<std::array<double, 2>> ranges_;
  int n_shape_ = 0;
};

}  // namespace camber::solvers::aero
