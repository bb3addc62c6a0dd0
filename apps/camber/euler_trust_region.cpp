// `camber optimize` with optimizer.algorithm: trust_region: the network
// model from the deck, and what each expensive evaluation reports.
#include <cmath>
#include <iomanip>
#include <sstream>

#include "euler_common.hpp"

#include <camber/core/atomic_file.hpp>
#include <camber/core/log.hpp>
#include <camber/solvers/aero/deck_keys.hpp>

namespace camber::app::euler_app {

TrustRegionOutputs::TrustRegionOutputs(const deck::Deck& d, aero::ShapeDesign& problem,
                                       MPI_Comm comm)
    : problem_(problem),
      comm_(comm),
      path_(d.string("output.dir") + "/" + d.string("case") + "_trust_region.csv"),
      objective_(d.string("optimizer.objective")) {
  const nn::EnsembleOptions e = aero::ensemble_keys().read(d, "trust_region");
  model_ = std::make_unique<aero::NetworkModel>(problem, e);
  opt::TrustRegionOptions o;
  o.max_evaluations = static_cast<int>(d.integer("optimizer.max_iterations"));
  o.initial_radius = d.real("trust_region.initial_radius");
  o.min_radius = d.real("trust_region.min_radius");
  o.max_radius = d.real("trust_region.max_radius");
  o.penalty = d.real("trust_region.penalty");
  o.xtol = 1e-6;
  o.subproblem.algorithm = "slsqp";
  o.subproblem.max_evaluations = static_cast<int>(d.integer("trust_region.subproblem_evaluations"));
  o.subproblem.ftol_rel = 1e-10;
  o.subproblem.xtol_rel = 1e-8;
  o.subproblem.constraint_tol = 1e-8;
  collective_guard(comm, [&] {
    if (o.min_radius > o.initial_radius || o.initial_radius > o.max_radius)
      d.reject("trust_region.initial_radius",
               CAMBER_MSG("needs min_radius <= initial_radius <= max_radius; they are "
                          << o.min_radius << ", " << o.initial_radius << ", " << o.max_radius));
  });
  const opt::Problem p = problem.problem();
  adjoints_per_design_ = 1 + p.n_inequality - problem.geometry().n_constraints() + p.n_equality;
  problem.use_trust_region(model_.get(), o, [this](const opt::TrustRegionRecord& r,
                                                   const aero::DesignCosts* costs) {
    record(r, costs);
  });
  csv_ << "evaluation,iteration,objective,max_violation,merit,predicted_objective,"
          "network_objective,network_spread,predicted_reduction,actual_reduction,ratio,step,"
          "radius,accepted,subproblem_evaluations,model_seconds,flow_adjoint_seconds\n"
       << std::setprecision(10);
  logging::info(CAMBER_MSG("trust region: " << e.members << " networks "
                                            << model_->ensemble_description() << ", "
                                            << e.epochs << " epochs per fit, gradient weight "
                                            << e.gradient_weight << "; radius "
                                            << o.initial_radius << " x design.bound, at most "
                                            << o.max_evaluations << " flows"));
}

TrustRegionOutputs::~TrustRegionOutputs() { problem_.use_trust_region(nullptr, {}); }

void TrustRegionOutputs::record(const opt::TrustRegionRecord& r, const aero::DesignCosts*) {
  csv_ << r.evaluation << ',' << r.iteration << ',' << r.objective << ',' << r.max_violation << ','
       << r.merit << ',' << r.predicted_objective << ',' << r.model_objective << ','
       << r.model_uncertainty << ',' << r.predicted_reduction << ',' << r.actual_reduction << ','
       << r.ratio << ',' << r.step << ',' << r.radius << ',' << (r.accepted ? 1 : 0) << ','
       << r.model_evaluations << ',' << r.model_seconds << ',' << r.evaluation_seconds << '\n';
  if (r.iteration == 0) return;
  logging::info(CAMBER_MSG(std::setprecision(6)
                           << "  trust region " << r.iteration << ": " << objective_
                           << " predicted " << r.predicted_objective << " (network "
                           << r.model_objective << " +- " << std::setprecision(2)
                           << r.model_uncertainty << std::setprecision(6) << "), solved "
                           << r.objective << ", ratio " << std::setprecision(3) << r.ratio
                           << ", step " << r.step << ", radius " << r.radius << ", "
                           << (r.failed ? "failed" : r.accepted ? "accepted" : "rejected")
                           << std::setprecision(2) << "; model " << r.model_seconds << " s ("
                           << r.model_evaluations << " network evaluations)"));
}

void TrustRegionOutputs::write_final() const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank == 0) write_file_atomically(path_, csv_.str());
}

std::string TrustRegionOutputs::summary() const {
  const opt::TrustRegionResult& t = problem_.trust_region_result();
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << "\n  trust region    " << t.n_evaluations
    << " flows (each with " << adjoints_per_design_ << " adjoint"
    << (adjoints_per_design_ == 1 ? "" : "s") << "), " << t.n_accepted << " steps accepted of "
    << t.n_iterations << ", final radius " << std::setprecision(4) << t.radius
    << std::setprecision(1) << "\n                  flows and adjoints " << t.evaluation_seconds
    << " s, networks " << t.model_seconds << " s (fitting " << model_->fit_seconds() << " s)";
  return s.str();
}

}  // namespace camber::app::euler_app
