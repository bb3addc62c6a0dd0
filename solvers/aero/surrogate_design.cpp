#include "surrogate_design.hpp"

#include <iomanip>
#include <utility>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/core/runtime.hpp>

namespace camber::solvers::aero {

opt::TrustRegionOptions design_trust_region_options() {
  opt::TrustRegionOptions o;
  o.xtol = 1e-6;
  o.subproblem.algorithm = "slsqp";
  o.subproblem.max_evaluations = 300;
  o.subproblem.ftol_rel = 1e-10;
  o.subproblem.xtol_rel = 1e-8;
  o.subproblem.constraint_tol = 1e-8;
  return o;
}

SurrogateDesign::SurrogateDesign(ShapeDesign& design, SurrogateDesignSettings settings, MPI_Comm comm)
    : design_(design), settings_(std::move(settings)), comm_(comm) {
  opt::TrustRegionOptions& o = settings_.region;
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(o.min_radius <= o.initial_radius && o.initial_radius <= o.max_radius,
                         "the trust region needs min_radius <= initial_radius <= max_radius; they are "
                             << o.min_radius << ", " << o.initial_radius << ", " << o.max_radius);
  });
  o.max_evaluations = design.design_settings().optimizer.max_evaluations;
  model_ = std::make_unique<NetworkModel>(design, settings_.ensemble);
  const opt::Problem p = design.problem();
  adjoints_per_design_ = 1 + p.n_inequality - design.geometry().n_constraints() + p.n_equality;
  design.use_trust_region(model_.get(), o,
                          [this](const opt::TrustRegionRecord& r, const DesignCosts*) { record(r); });
  csv_ << "evaluation,iteration,objective,max_violation,merit,predicted_objective,"
          "network_objective,network_spread,predicted_reduction,actual_reduction,ratio,step,"
          "radius,accepted,subproblem_evaluations,model_seconds,flow_adjoint_seconds\n"
       << std::setprecision(10);
  const nn::EnsembleOptions& e = settings_.ensemble;
  logging::info(CAMBER_MSG("trust region: " << e.members << " networks "
                                            << model_->ensemble_description() << ", " << e.epochs
                                            << " epochs per fit, gradient weight " << e.gradient_weight
                                            << "; radius " << o.initial_radius
                                            << " x the bound, at most " << o.max_evaluations
                                            << " flows"));
}

SurrogateDesign::~SurrogateDesign() { design_.use_trust_region(nullptr, {}); }

void SurrogateDesign::record(const opt::TrustRegionRecord& r) {
  csv_ << r.evaluation << ',' << r.iteration << ',' << r.objective << ',' << r.max_violation << ','
       << r.merit << ',' << r.predicted_objective << ',' << r.model_objective << ','
       << r.model_uncertainty << ',' << r.predicted_reduction << ',' << r.actual_reduction << ','
       << r.ratio << ',' << r.step << ',' << r.radius << ',' << (r.accepted ? 1 : 0) << ','
       << r.model_evaluations << ',' << r.model_seconds << ',' << r.evaluation_seconds << '\n';
  if (r.iteration == 0) return;
  logging::info(CAMBER_MSG(std::setprecision(6)
                           << "  trust region " << r.iteration << ": " << settings_.objective
                           << " predicted " << r.predicted_objective << " (network "
                           << r.model_objective << " +- " << std::setprecision(2)
                           << r.model_uncertainty << std::setprecision(6) << "), solved "
                           << r.objective << ", ratio " << std::setprecision(3) << r.ratio
                           << ", step " << r.step << ", radius " << r.radius << ", "
                           << (r.failed ? "failed" : r.accepted ? "accepted" : "rejected")
                           << std::setprecision(2) << "; model " << r.model_seconds << " s ("
                           << r.model_evaluations << " network evaluations)"));
}

void SurrogateDesign::write_final() const {
  if (comm_rank(comm_) == 0 && !settings_.record_path.empty())
    write_file_atomically(settings_.record_path, csv_.str());
}

std::string SurrogateDesign::summary() const {
  const opt::TrustRegionResult& t = design_.trust_region_result();
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << "\n  trust region    " << t.n_evaluations
    << " flows (each with " << adjoints_per_design_ << " adjoint"
    << (adjoints_per_design_ == 1 ? "" : "s") << "), " << t.n_accepted << " steps accepted of "
    << t.n_iterations << ", final radius " << std::setprecision(4) << t.radius
    << std::setprecision(1) << "\n                  flows and adjoints " << t.evaluation_seconds
    << " s, networks " << t.model_seconds << " s (fitting " << model_->fit_seconds() << " s)";
  return s.str();
}

}  // namespace camber::solvers::aero
