// `camber optimize DECK` for the euler problem: aerodynamic shape
// optimization in a gradient loop.
//
// Each evaluation: the design vector a -> wall displacement (the deck's
// parametrization) -> deformed volume mesh (IDW) -> converged flow
// (SteadyFlow, warm-started) -> CL, CD, CM; their gradients by adjoint
// solves through the same chain (ad::vjp); thickness constraints are linear
// in a and exact. NLopt (camber::opt) drives the loop. After every
// evaluation the optimizer's history and the flow state are checkpointed
// (atomically), and --restart replays the history (no flow solves) and
// continues from the saved state, so it reaches the design an uninterrupted
// run reaches.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <numeric>
#include <sstream>

#include "euler_common.hpp"
#include "mesh_source.hpp"
#include <camber/autodiff/functional.hpp>
#include <camber/solvers/euler/deck_keys.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/design/airfoil_section.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/design_boundary.hpp>
#include <camber/design/ffd.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/io/gnuplot.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/core/log.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/su2_writer.hpp>
#include <camber/optimization/history.hpp>
#include <camber/solvers/aero/design_file.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace euler_app {

eu::SteadyFlowSettings design_flow_settings(const deck::Deck& d, const mesh::Mesh& m,
                                            MPI_Comm comm) {
  eu::SteadyFlowSettings settings;
  settings.conditions = boundary_conditions(d, m, comm);
  settings.flow = flow_conditions(d);
  settings.scheme = flux_scheme(d);
  settings.spatial = spatial_options(d);
  settings.steady = steady_options(d);
  eu::warm_start_keys().read(d, "solver", settings);
  // `camber -v optimize`: every Newton step of every flow solve.
  settings.monitor = [](const eu::IterationReport& r) {
    logging::debug(CAMBER_MSG("  flow step " << r.iteration << std::scientific << std::setprecision(3)
                                             << "  res " << r.residual_density << "  cfl " << r.cfl
                                             << "  step " << r.step << "  ksp " << r.linear_iterations
                                             << std::fixed << std::setprecision(6) << "  CL " << r.forces.cl));
  };
  return settings;
}

design::DeformationOptions deformation_options(const deck::Deck& d) {
  design::DeformationOptions o;
  o.exponent = d.real("design.idw_exponent");
  o.method = enum_from_name(design::deformation_method_names, d.string("design.deformation"),
                            "design.deformation");
  o.rbf_support = d.real("design.rbf_support");
  return o;
}

std::unique_ptr<design::ShapeParametrization> shape_parametrization(
    const deck::Deck& d, const mesh::DistributedMesh& dm, MPI_Comm comm) {
  const std::vector<std::string> wall = {d.string("design.wall")};
  const std::string kind = d.string("design.parametrization");
  std::unique_ptr<design::ShapeParametrization> p;
  collective_guard(comm, [&] {
    // Every rank has every marker's name: all reject alike, before the
    // wall is gathered.
    if (dm.local().marker_index(wall[0]) < 0)
      d.reject("design.wall", "the mesh has no marker '" + wall[0] + "'");
    design::AirfoilWall w(design::design_boundary(dm, wall));
    if (kind == "hicks_henne") {
      p = std::make_unique<design::HicksHenne>(
          std::move(w),
          design::evenly_spaced_bumps(static_cast<int>(d.integer("design.bumps_per_surface"))));
    } else if (kind == "cst") {
      design::CstOptions o;
      o.order = static_cast<int>(d.integer("design.cst_order"));
      p = std::make_unique<design::Cst>(std::move(w), o);
    } else {
      design::FfdOptions o;
      o.degree_x = static_cast<int>(d.integer("design.ffd_degree_x"));
      o.degree_y = static_cast<int>(d.integer("design.ffd_degree_y"));
      p = std::make_unique<design::FreeFormDeformation>(std::move(w), o);
    }
  });
  return p;
}

void shape_design_settings(const deck::Deck& d, aero::ShapeDesignSettings& s, MPI_Comm comm) {
  s.objective = enum_from_name(aero::coefficient_names, d.string("optimizer.objective"),
                               "optimizer.objective");
  // at_least_baseline, equal_baseline, fixed_baseline: the constraint with
  // the baseline's CL as its target.
  std::string lift = d.string("optimizer.lift");
  const std::string baseline = "_baseline";
  if (lift.size() > baseline.size() &&
      lift.compare(lift.size() - baseline.size(), baseline.size(), baseline) == 0)
    lift.resize(lift.size() - baseline.size());
  s.lift = enum_from_name(aero::lift_constraint_names, lift, "optimizer.lift");
  if (d.has("optimizer.lift_target")) s.lift_target = d.real("optimizer.lift_target");
  s.alpha_range_deg = d.real("optimizer.alpha_range_deg");
  if (d.has("optimizer.cm_min")) s.cm_min = d.real("optimizer.cm_min");
  // A multi-point design: flow.mach's point first, the others in the
  // deck's order.
  const std::vector<double>& mach_points = d.reals("optimizer.mach_points");
  const std::vector<double>& point_weights = d.reals("optimizer.point_weights");
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < mach_points.size(); ++i)
      if ((mach_points[i] == s.flow.flow.mach) == (pass == 0))
        s.points.push_back(
            {mach_points[i], s.flow.flow.alpha_deg, point_weights.empty() ? 1.0 : point_weights[i]});
  s.bound = d.real("design.bound");
  // trust_region: SLSQP solves its subproblems (euler_trust_region.cpp).
  s.optimizer.algorithm =
      d.string("optimizer.algorithm") == "trust_region" ? "slsqp" : d.string("optimizer.algorithm");
  s.optimizer.max_evaluations = static_cast<int>(d.integer("optimizer.max_iterations"));
  s.optimizer.ftol_rel = d.real("optimizer.ftol_rel");
  s.optimizer.xtol_rel = 1e-6;
  s.optimizer.constraint_tol = 1e-6;
  // The checkpoint: <case>_optimizer.history and <case>_optimizer_state_<k>.h5.
  s.checkpoint = d.string("output.dir") + "/" + d.string("case") + "_optimizer";
  collective_guard(comm, [&] {
    if (d.string("design.start").empty()) return;
    // A final design CSV of camber optimize (its alpha rows are not used).
    const std::string path = deck_relative_path(d, d.string("design.start"));
    try {
      s.start = aero::read_design_file(path).shape;
    } catch (const Error& e) {
      d.reject("design.start", e.message());
    }
  });
}

void check_start(const deck::Deck& d, const aero::ShapeDesign& problem, MPI_Comm comm) {
  const std::vector<double>& start = problem.design_settings().start;
  collective_guard(comm, [&] {
    if (start.empty()) return;
    if (start.size() != static_cast<size_t>(problem.n_design()))
      d.reject("design.start", CAMBER_MSG("holds " << start.size()
                                                   << " shape variables; this design section makes "
                                                   << problem.n_design()));
    for (size_t k = 0; k < start.size(); ++k)
      if (std::abs(start[k]) > problem.design_settings().bound)
        d.reject("design.start", CAMBER_MSG("variable " << k << " = " << start[k]
                                                        << " lies outside design.bound = "
                                                        << problem.design_settings().bound));
  });
}

void log_baseline(const deck::Deck& d, aero::ShapeDesign& problem, std::int64_t n_cells,
                  const std::string& geometry) {
  int ranks = 1;
  MPI_Comm_size(problem.flow().distributed_mesh().comm(), &ranks);
  logging::info(CAMBER_MSG("optimize: " << n_cells << " cells on " << ranks
                                        << (ranks == 1 ? " rank" : " ranks") << ", "
                                        << problem.n_design() << " design variables ("
                                        << d.string("design.parametrization")
                                        << (problem.trims_alpha() ? ", and alpha" : "")
                                        << "), objective " << d.string("optimizer.objective")
                                        << (problem.n_points() > 1
                                                ? " (weighted mean over " +
                                                      std::to_string(problem.n_points()) +
                                                      " operating points)"
                                                : std::string())));
  const std::array<double, 3> base = problem.baseline();
  logging::info(CAMBER_MSG(std::setprecision(6)
                           << "baseline: CL " << base[0] << ", CD " << base[1] << ", CM " << base[2]
                           << geometry << " ("
                           << problem.flow().report().newton_iterations << " Newton steps, "
                           << std::setprecision(3) << problem.flow().report().solve_seconds << " s)"));
  for (int i = 1; i < problem.n_points(); ++i) {
    const std::array<double, 3>& b = problem.baseline(i);
    logging::info(CAMBER_MSG(std::setprecision(6)
                             << "baseline at M " << problem.points()[static_cast<size_t>(i)].mach
                             << " (weight " << problem.points()[static_cast<size_t>(i)].weight
                             << "): CL " << b[0] << ", CD " << b[1] << ", CM " << b[2]));
  }
  if (problem.design_settings().lift != aero::LiftConstraint::none)
    for (int i = 0; i < problem.n_points(); ++i)
      logging::info(CAMBER_MSG(std::setprecision(6)
                               << "lift: CL "
                               << (problem.trims_alpha() || problem.fixes_lift() ? "= " : ">= ")
                               << problem.lift_target(i)
                               << (problem.trims_alpha() ? ", alpha trimmed by the optimizer"
                                   : problem.fixes_lift() ? ", alpha trimmed in every evaluation"
                                                          : "")
                               << (problem.n_points() > 1
                                       ? " at M " + std::to_string(problem.points()[static_cast<size_t>(i)].mach)
                                       : std::string())));
}

DesignOutputs::DesignOutputs(const deck::Deck& d, aero::ShapeDesign& problem,
                             std::vector<std::string> walls, const std::string& checkpoint,
                             MPI_Comm comm)
    : d_(d),
      problem_(problem),
      walls_(std::move(walls)),
      checkpoint_(checkpoint),
      comm_(comm),
      name_(d.string("case")),
      dir_(d.string("output.dir")),
      objective_(d.string("optimizer.objective")),
      series_(dir_ + "/" + name_ + "_designs.pvd", comm) {
  csv_ << "evaluation,objective,max_violation,gradient_norm,best_objective,CL,CD,CM,alpha_deg,"
          "newton_steps,adjoint_iterations,flow_seconds,adjoint_seconds,seconds,replayed\n"
       << std::setprecision(10);
}

void DesignOutputs::operator()(const opt::Record& r, const aero::DesignCosts* costs) {
  aero::ShapeDesign& problem = problem_;
  const index_t n = problem.n_design();
  const int max_evaluations = problem.design_settings().optimizer.max_evaluations;
  const aero::DesignCosts ex = costs ? *costs : aero::DesignCosts{};
  if (r.replayed) {
    ++replayed_;
  } else if (replayed_ > 0 && r.evaluation == replayed_ + 1) {
    logging::info(CAMBER_MSG("restart: replayed " << replayed_ << " evaluations from "
                                                  << checkpoint_ << ".history (no flow solves)"));
  }
  std::ostringstream line;
  line << "design " << r.evaluation << "/" << max_evaluations << std::setprecision(6)
       << (r.failed ? "  FAILED: " + r.failure : "") << "  " << objective_ << " " << r.objective
       << "  violation " << std::scientific << std::setprecision(2) << r.max_violation
       << "  |grad| " << r.gradient_norm << std::fixed << std::setprecision(6) << "  best "
       << r.best_objective;
  if (r.replayed)
    line << "  (replayed)";
  else if (costs)
    line << "  CL " << ex.coefficients[0]
         << (problem.trims_alpha() || problem.fixes_lift()
                 ? "  alpha " + std::to_string(ex.point_alpha_deg.front())
                 : "")
         << std::setprecision(2) << "  flow " << ex.newton_iterations << " steps "
         << (problem.fixes_lift() ? "(" + std::to_string(ex.trim_solves) + " solves) " : "")
         << (ex.cold_restart ? "(warm start abandoned, solved cold) " : "") << ex.flow_seconds
         << " s, adjoint " << ex.adjoint_iterations << " its " << ex.adjoint_seconds
         << " s, total " << ex.seconds << " s";
  logging::info(line.str());
  csv_ << r.evaluation << ',' << r.objective << ',' << r.max_violation << ',' << r.gradient_norm
       << ',' << r.best_objective << ',' << ex.coefficients[0] << ',' << ex.coefficients[1] << ','
       << ex.coefficients[2] << ','
       << (problem.trims_alpha()         ? r.x[static_cast<size_t>(n)]
           : ex.point_alpha_deg.empty() ? problem.points().front().alpha_deg
                                        : ex.point_alpha_deg.front())
       << ',' << ex.newton_iterations << ',' << ex.adjoint_iterations << ',' << ex.flow_seconds
       << ',' << ex.adjoint_seconds << ',' << ex.seconds << ',' << (r.replayed ? 1 : 0) << '\n';
  const std::string file = io::series_file_name(name_ + "_design", r.evaluation) + ".pvtu";
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (costs && r.evaluation == 1 && rank == 0) {
    // The baseline gradient, e.g. hicks_henne_38.csv: d(objective)/da_k.
    std::ostringstream g;
    g << "variable,d" << objective_ << "_d_a\n" << std::setprecision(12);
    const opt::Evaluation& e = problem.history().front().values;
    for (size_t k = 0; k < e.objective_gradient.size(); ++k)
      g << (k >= static_cast<size_t>(n) ? "alpha_deg_" + std::to_string(k - static_cast<size_t>(n))
                                        : std::to_string(k))
        << ',' << e.objective_gradient[k] << '\n';
    write_file_atomically(dir_ + "/" + d_.string("design.parametrization") + "_" +
                              std::to_string(n) + ".csv",
                          g.str());
  }
  if (costs && d_.boolean("output.paraview")) {
    eu::SteadyFlow& flow = problem.flow();
    const eu::Discretization& disc = flow.discretization();
    std::vector<io::Field> fields = aero::flow_fields(disc, flow.state());
    for (io::Field& f : aero::sensitivity_fields(flow, walls_, objective_)) fields.push_back(std::move(f));
    io::write_pvtu(dir_ + "/" + io::series_file_name(name_ + "_design", r.evaluation),
                   disc.mesh().owned_piece(fields), comm_);
    for (const std::string& wall : walls_)
      io::write_pvtp(dir_ + "/" +
                         io::series_file_name(name_ + (walls_.size() == 1 ? "_wall" : "_" + wall),
                                              r.evaluation),
                     disc.mesh().marker_surface(wall, fields), comm_);
    series_.add(r.evaluation, file);
  } else if (r.replayed && d_.boolean("output.paraview") && fs::exists(dir_ + "/" + file)) {
    series_.add(r.evaluation, file);
  }
}

void DesignOutputs::write_final(const aero::ShapeDesignResult& result) const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank != 0) return;
  write_file_atomically(dir_ + "/" + name_ + "_optimizer_history.csv", csv_.str());
  aero::DesignFile design;
  design.shape.assign(result.optimizer.x.begin(), result.optimizer.x.begin() + problem_.n_design());
  if (problem_.trims_alpha() || problem_.fixes_lift()) design.alpha_deg = result.final_alpha_points;
  aero::write_design_file(dir_ + "/" + name_ + "_final_design.csv", design);
  const std::string script = dir_ + "/" + name_ + "_optimizer_plots.gp";
  std::ostringstream gp;
  gp << "set terminal pngcairo size 900,900 noenhanced\nset datafile separator ','\n"
     << "set grid\nset output '" << dir_ << "/" << name_ << "_optimizer.png'\n"
     << "set multiplot layout 3,1 title 'camber optimize: " << name_ << "'\n"
     << "set ylabel '" << objective_ << "'\nplot '" << dir_ << "/" << name_
     << "_optimizer_history.csv' every ::1 using 1:2 with linespoints title 'objective', '' "
        "every ::1 using 1:5 with lines title 'best'\n"
     << "set ylabel 'violation'\nplot '' every ::1 using 1:3 with linespoints title "
        "'max violation'\n"
     << "set logscale y\nset ylabel '|gradient|'\nset xlabel 'evaluation'\nplot '' every "
        "::1 using 1:4 with linespoints title 'gradient norm'\nunset multiplot\n";
  io::run_gnuplot(script, gp.str());
}

std::string DesignOutputs::summary_head(const aero::ShapeDesignResult& result) const {
  std::ostringstream summary;
  summary << std::fixed << std::setprecision(6) << "\n                  baseline    final"
          << "\n  CL              " << result.baseline[0] << "    " << result.final[0]
          << "\n  CD              " << result.baseline[1] << "    " << result.final[1]
          << "\n  CM              " << result.baseline[2] << "    " << result.final[2]
          << "\n  alpha, deg      " << result.baseline_alpha_deg << "    "
          << result.final_alpha_deg;
  // With the lift fixed the baseline column is the untrimmed baseline; the
  // first design is the baseline at the target lift.
  if (problem_.fixes_lift() && !problem_.history().empty())
    summary << "\n  " << objective_ << " at CL " << problem_.lift_target() << ": "
            << (problem_.design_settings().start.empty() ? "the baseline " : "design 1 (design.start) ")
            << problem_.history().front().values.objective << ", the best design "
            << result.optimizer.objective << " ("
            << std::setprecision(2)
            << 100.0 * (result.optimizer.objective - problem_.history().front().values.objective) /
                   std::abs(problem_.history().front().values.objective)
            << "%)" << std::setprecision(6);
  if (result.final_points.size() > 1)
    summary << "\n  " << objective_ << ", weighted    " << result.baseline_objective << "    "
            << result.optimizer.objective;
  for (size_t i = 1; i < result.final_points.size(); ++i)
    summary << "\n  at M " << problem_.points()[i].mach << ": CL " << result.baseline_points[i][0]
            << " -> " << result.final_points[i][0] << ", CD " << result.baseline_points[i][1]
            << " -> " << result.final_points[i][1] << ", CM " << result.baseline_points[i][2]
            << " -> " << result.final_points[i][2] << ", alpha " << result.final_alpha_points[i]
            << " deg";
  return summary.str();
}

std::string DesignOutputs::summary_tail(const aero::ShapeDesignResult& result,
                                        double seconds) const {
  const opt::Result& o = result.optimizer;
  std::ostringstream summary;
  summary << "\n  evaluations     " << o.n_evaluations << " (" << o.n_live_evaluations
          << " solved, " << o.n_failures << " failed)"
          << "\n  max violation   " << std::scientific << std::setprecision(2) << o.max_violation
          << "\n  stopped         " << opt::to_string(o.status) << ": " << o.message << std::fixed
          << std::setprecision(1) << "\n  wall time       " << seconds << " s";
  return summary.str();
}

}  // namespace euler_app

using namespace euler_app;

int optimize_euler(const deck::Deck& d, const Runtime& runtime, bool restart,
                   const std::string& petsc_options) {
  const MPI_Comm comm = runtime.comm();
  if (d.boolean("flow.far_field_vortex"))
    d.reject("flow.far_field_vortex",
             "camber optimize's adjoint holds the far field fixed, so it would not be the "
             "derivative of a lift-dependent far field; use a far field of many chords");
  solvers::petsc::PetscSession petsc(petsc_options);
  const std::string name = d.string("case"), dir = d.string("output.dir");
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  // A mesh file is read in parallel (each rank its chunk); a 3-D one
  // designs a wing (wing_optimize.cpp). No rank holds the global mesh.
  const bool trust_region = d.string("optimizer.algorithm") == "trust_region";
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(!(trust_region && restart),
                         "--restart: optimizer.algorithm: trust_region does not restart (its "
                         "networks are not checkpointed); run again without --restart");
  });
  mesh::MeshChunk chunk = build_mesh_chunk(d, comm, 3, "");
  collective_guard(comm, [&] {
    if (chunk.dim == 3 && trust_region)
      d.reject("optimizer.algorithm",
               "trust_region designs 2-D sections so far; this mesh is 3-D (use slsqp, mma or ccsaq)");
  });
  if (chunk.dim == 3)
    return optimize_wing(d, runtime, restart, mesh::DistributedMesh(std::move(chunk), comm));
  mesh::DistributedMesh dm(std::move(chunk), comm);
  collective_guard(comm, [&] {
    if (d.string("design.parametrization") == "ffd_volume")
      d.reject("design.parametrization",
               "ffd_volume designs a 3-D mesh; this one is 2-D (use hicks_henne, cst or ffd)");
  });
  const std::int64_t n_cells = dm.n_global_cells();
  aero::AirfoilDesignSettings settings;
  settings.flow = design_flow_settings(d, dm.local(), comm);
  settings.wall = d.string("design.wall");
  settings.deformation = deformation_options(d);
  settings.thickness_fraction = d.real("optimizer.thickness_fraction");
  settings.max_thickness_min = d.real("optimizer.max_thickness_min");
  settings.area_fraction = d.real("optimizer.area_fraction");
  settings.le_radius_fraction = d.real("optimizer.le_radius_fraction");
  shape_design_settings(d, settings, comm);
  std::unique_ptr<design::ShapeParametrization> shape = shape_parametrization(d, dm, comm);
  aero::AirfoilDesign problem(std::move(dm), std::move(shape), settings);
  check_start(d, problem, comm);
  const index_t n = problem.n_design();
  const double max_thickness_min = settings.max_thickness_min;
  const std::vector<double> t0 = problem.thickness(std::vector<double>(static_cast<size_t>(n), 0.0));
  const double t0_max = *std::max_element(t0.begin(), t0.end());
  if (max_thickness_min > 0.0 && t0_max < max_thickness_min)
    logging::warn(CAMBER_MSG("the baseline's largest thickness "
                             << t0_max << " is below optimizer.max_thickness_min = "
                             << max_thickness_min << ": the optimizer starts from an infeasible design"));

  log_baseline(d, problem, n_cells, CAMBER_MSG(", max thickness " << t0_max));
  if (runtime.rank() == 0) fs::create_directories(dir);
  CAMBER_CHECK_MPI(MPI_Barrier(comm));
  DesignOutputs outputs(d, problem, {settings.wall}, settings.checkpoint, comm);
  std::unique_ptr<TrustRegionOutputs> trust;
  if (trust_region) trust = std::make_unique<TrustRegionOutputs>(d, problem, comm);
  const aero::AirfoilDesignResult result = problem.run(
      [&](const opt::Record& r, const aero::DesignCosts* costs) { outputs(r, costs); }, restart);

  // The final design: shape and mesh (written by every rank, its part).
  outputs.write_final(result);
  if (trust) trust->write_final();
  if (runtime.rank() == 0)
    write_file_atomically(dir + "/" + name + "_final.dat",
                          design::selig_text(name + " (camber optimize, final design)",
                                             problem.shape().wall(), result.final_wall));
  mesh::write_su2(problem.mesh_at(result.final_shape), dir + "/" + name + "_final.su2");
  std::ostringstream summary;
  summary << std::fixed << std::setprecision(6) << outputs.summary_head(result)
          << "\n  max thickness   " << result.baseline_max_thickness << "    "
          << result.final_max_thickness << "\n  area            " << result.baseline_area
          << "    " << result.final_area << "\n  LE radius       " << result.baseline_le_radius
          << "    " << result.final_le_radius << outputs.summary_tail(result, elapsed())
          << (trust ? trust->summary() : std::string())
          << "\n  outputs         " << dir << "/" << name
          << "_{optimizer_history.csv,optimizer.png,final.dat,final.su2,final_design.csv,designs.pvd}"
          << "\n                  " << dir << "/" << d.string("design.parametrization") << "_" << n
          << ".csv (the baseline gradient)";
  logging::info("summary:" + summary.str());
  // A collapsed trust region is an error (exit 1) once the last accepted
  // design is written.
  if (result.optimizer.status == opt::Status::trust_region_collapsed)
    throw Error(ErrorKind::failure, "camber optimize: " + result.optimizer.message +
                                        "; the outputs hold the last accepted design");
  return result.optimizer.status == opt::Status::evaluation_failed ? 1 : 0;
}

}  // namespace camber::app
