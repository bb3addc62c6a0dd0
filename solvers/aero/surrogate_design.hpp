/// @file
/// camber::solvers::aero::SurrogateDesign — surrogate-based (trust-region)
/// optimization of a ShapeDesign, with its record: what `camber optimize`
/// does with optimizer.algorithm: trust_region.
///
/// While it lives, the design's run() optimizes an ensemble of networks
/// (NetworkModel: fitted to every flow's values and adjoint gradients)
/// inside a trust region (opt::TrustRegion): each candidate is checked by
/// a flow and its adjoints and accepted by the merit ratio, the region
/// grows or shrinks, the networks are fine-tuned with the new point. Each
/// expensive evaluation is logged and kept as a row of `record_path`
/// (write_final()); summary() gives the flows, steps accepted, final radius
/// and the time in flows and in networks.
///
/// @code
///   aero::SurrogateDesignSettings t;   // 4 networks of 32 x 32, radius 0.25
///   t.record_path = "out/naca_trust_region.csv";
///   aero::SurrogateDesign surrogate(design, t, comm);
///   const auto result = design.run();     // through the trust region
///   surrogate.write_final();
/// @endcode
///
/// Collective over `comm` (the design's). Radii are in units of the
/// design's bound (the scaled variables). bad_input for radii out of
/// order (min <= initial <= max).
#pragma once

#include <mpi.h>

#include <memory>
#include <sstream>
#include <string>

#include <camber/nn/ensemble.hpp>
#include <camber/optimization/trust_region.hpp>
#include <camber/solvers/aero/shape_design.hpp>
#include <camber/solvers/aero/surrogate_model.hpp>

namespace camber::solvers::aero {

/// The trust region of a design: at most 30 flows (set from the design's
/// optimizer.max_evaluations by SurrogateDesign), convergence at a step of
/// 1e-6, the subproblem by SLSQP in 300 network evaluations at tolerances
/// 1e-10 (objective) and 1e-8 (design, constraints).
opt::TrustRegionOptions design_trust_region_options();

struct SurrogateDesignSettings {
  nn::EnsembleOptions ensemble;
  opt::TrustRegionOptions region = design_trust_region_options();
  std::string record_path;       ///< the CSV of the evaluations ("" : none)
  std::string objective = "cd";  ///< its name in lines
};

class SurrogateDesign {
 public:
  SurrogateDesign(ShapeDesign& design, SurrogateDesignSettings settings, MPI_Comm comm);
  ~SurrogateDesign();  ///< detaches the trust region from the design
  SurrogateDesign(const SurrogateDesign&) = delete;
  SurrogateDesign& operator=(const SurrogateDesign&) = delete;

  /// The record CSV (rank 0).
  void write_final() const;
  /// The summary's trust-region rows.
  std::string summary() const;
  const NetworkModel& model() const { return *model_; }

 private:
  void record(const opt::TrustRegionRecord& r);
  ShapeDesign& design_;
  SurrogateDesignSettings settings_;
  MPI_Comm comm_;
  std::unique_ptr<NetworkModel> model_;
  std::ostringstream csv_;
  int adjoints_per_design_ = 0;
};

}  // namespace camber::solvers::aero
