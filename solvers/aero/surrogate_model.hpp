/// @file
/// camber::solvers::aero::NetworkModel — the model a surrogate-based shape
/// optimization (ShapeDesign::use_trust_region) optimizes on: an ensemble
/// of small networks (nn::Ensemble) over the design variables, trained on
/// every flow solved so far, the values and their adjoint gradients
/// (gradient-enhanced training), for the objective and the flow's
/// constraints (lift, moment); the geometry's constraints (thickness,
/// area), which cost no flow, are the exact ones.
///
/// The networks see the design variables divided by the problem's scales
/// (the bound on the bumps) and predict the objective and constraints
/// relative to the first successfully evaluated design's (the baseline,
/// unless its flow failed), in the problem's scales (so that the
/// baseline drag is 1): the normalisation is fixed at the first fit, and
/// each later fit fine-tunes the members from their weights.
///
/// @code
///   aero::AirfoilDesign design(...);
///   aero::NetworkModel model(design, ensemble_options);   // collective
///   opt::TrustRegionOptions o;  o.max_evaluations = 15;
///   design.use_trust_region(&model, o);
///   aero::AirfoilDesignResult r = design.run();
/// @endcode
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <camber/nn/ensemble.hpp>
#include <camber/optimization/trust_region.hpp>
#include <camber/solvers/aero/shape_design.hpp>

namespace camber::solvers::aero {

class NetworkModel : public opt::SurrogateModel {
 public:
  /// Reads the design's sizes and scales (solving its baseline if it has
  /// not). Collective over the design's communicator.
  NetworkModel(ShapeDesign& design, nn::EnsembleOptions options);

  void fit(const opt::History& samples) override;
  opt::Evaluation evaluate(const std::vector<double>& x) override;
  /// The members' spread of the objective.
  double objective_uncertainty(const std::vector<double>& x) override;

  /// The ensemble (after the first fit).
  const nn::Ensemble& ensemble() const;
  /// "(12 -> 32 -> 32 -> 2, tanh)": the members' shape.
  std::string ensemble_description() const;
  /// Seconds spent in fit() so far.
  double fit_seconds() const noexcept { return fit_seconds_; }

 private:
  // The network's outputs: the objective, then the flow's inequality
  // constraints (those after the geometry's), then the equalities.
  std::vector<double> outputs(const opt::Evaluation& e) const;

  ShapeDesign& design_;
  nn::EnsembleOptions options_;
  MPI_Comm comm_;
  index_t n_ = 0;           // design variables
  int n_geometry_ = 0;      // exact inequality constraints, first
  int n_inequality_ = 0, n_equality_ = 0;
  std::vector<double> x_scale_, output_scale_;
  std::unique_ptr<nn::Ensemble> ensemble_;
  double fit_seconds_ = 0.0;
};

}  // namespace camber::solvers::aero
