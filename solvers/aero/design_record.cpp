#include "design_record.hpp"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <utility>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/io/gnuplot.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/solvers/aero/design_file.hpp>
#include <camber/solvers/aero/flow_output.hpp>
#include <camber/solvers/euler/steady_flow.hpp>

namespace camber::solvers::aero {

namespace fs = std::filesystem;

DesignRecord::DesignRecord(ShapeDesign& problem, DesignRecordSettings settings, MPI_Comm comm)
    : problem_(problem),
      settings_(std::move(settings)),
      comm_(comm),
      series_(settings_.dir + "/" + settings_.name + "_designs.pvd", comm) {
  csv_ << "evaluation,objective,max_violation,gradient_norm,best_objective,CL,CD,CM,alpha_deg,"
          "newton_steps,adjoint_iterations,flow_seconds,adjoint_seconds,seconds,replayed\n"
       << std::setprecision(10);
}

std::string DesignRecord::size_line() const {
  ShapeDesign& problem = problem_;
  const mesh::DistributedMesh& dm = problem.flow().distributed_mesh();
  const int ranks = dm.size();
  return CAMBER_MSG(dm.n_global_cells()
                    << " cells on " << ranks << (ranks == 1 ? " rank" : " ranks") << ", "
                    << problem.n_design() << " design variables (" << settings_.parametrization
                    << (problem.trims_alpha() ? ", and alpha" : "") << "), objective "
                    << settings_.objective
                    << (problem.n_points() > 1 ? " (weighted mean over " +
                                                     std::to_string(problem.n_points()) +
                                                     " operating points)"
                                               : std::string()));
}

std::vector<std::string> DesignRecord::baseline_lines(const std::string& geometry) const {
  ShapeDesign& problem = problem_;
  std::vector<std::string> lines;
  const std::array<double, 3> base = problem.baseline();
  lines.push_back(CAMBER_MSG(std::setprecision(6)
                             << "baseline: CL " << base[0] << ", CD " << base[1] << ", CM " << base[2]
                             << geometry << " (" << problem.flow().report().newton_iterations
                             << " Newton steps, " << std::setprecision(3)
                             << problem.flow().report().solve_seconds << " s)"));
  const std::vector<OperatingPoint>& points = problem.points();
  for (int i = 1; i < problem.n_points(); ++i) {
    const std::array<double, 3>& b = problem.baseline(i);
    lines.push_back(CAMBER_MSG(std::setprecision(6)
                               << "baseline at M " << points[static_cast<size_t>(i)].mach << " (weight "
                               << points[static_cast<size_t>(i)].weight << "): CL " << b[0] << ", CD "
                               << b[1] << ", CM " << b[2]));
  }
  if (problem.design_settings().lift != LiftConstraint::none)
    for (int i = 0; i < problem.n_points(); ++i)
      lines.push_back(CAMBER_MSG(
          std::setprecision(6)
          << "lift: CL " << (problem.trims_alpha() || problem.fixes_lift() ? "= " : ">= ")
          << problem.lift_target(i)
          << (problem.trims_alpha()   ? ", alpha trimmed by the optimizer"
              : problem.fixes_lift() ? ", alpha trimmed in every evaluation"
                                     : "")
          << (problem.n_points() > 1
                  ? " at M " + std::to_string(points[static_cast<size_t>(i)].mach)
                  : std::string())));
  return lines;
}

void DesignRecord::operator()(const opt::Record& r, const DesignCosts* costs) {
  ShapeDesign& problem = problem_;
  const std::string& name_ = settings_.name;
  const std::string& dir_ = settings_.dir;
  const std::string& objective_ = settings_.objective;
  const index_t n = problem.n_design();
  const int max_evaluations = problem.design_settings().optimizer.max_evaluations;
  const DesignCosts ex = costs ? *costs : DesignCosts{};
  if (r.replayed) {
    ++replayed_;
  } else if (replayed_ > 0 && r.evaluation == replayed_ + 1) {
    logging::info(CAMBER_MSG("restart: replayed " << replayed_ << " evaluations from "
                                                  << settings_.checkpoint << ".history (no flow solves)"));
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
    write_file_atomically(dir_ + "/" + settings_.parametrization + "_" +
                              std::to_string(n) + ".csv",
                          g.str());
  }
  if (costs && r.evaluation == 1)
    files_.push_back(dir_ + "/" + settings_.parametrization + "_" + std::to_string(n) + ".csv");
  if (costs && settings_.paraview) {
    euler::SteadyFlow& flow = problem.flow();
    const euler::Discretization& disc = flow.discretization();
    std::vector<io::Field> fields = flow_fields(disc, flow.state());
    for (io::Field& f : sensitivity_fields(flow, settings_.walls, objective_)) fields.push_back(std::move(f));
    io::write_pvtu(dir_ + "/" + io::series_file_name(name_ + "_design", r.evaluation),
                   disc.mesh().owned_piece(fields), comm_);
    for (const std::string& wall : settings_.walls)
      io::write_pvtp(dir_ + "/" +
                         io::series_file_name(name_ + (settings_.walls.size() == 1 ? "_wall" : "_" + wall),
                                              r.evaluation),
                     disc.mesh().marker_surface(wall, fields), comm_);
    series_.add(r.evaluation, file);
  } else if (r.replayed && settings_.paraview && fs::exists(dir_ + "/" + file)) {
    series_.add(r.evaluation, file);
  }
}

std::vector<std::string> DesignRecord::write_final(const ShapeDesignResult& result) const {
  const std::string& name_ = settings_.name;
  const std::string& dir_ = settings_.dir;
  std::vector<std::string> files = files_;
  if (!series_.entries().empty()) files.push_back(series_.path());
  files.push_back(dir_ + "/" + name_ + "_optimizer_history.csv");
  int plotted = write_history(result) ? 1 : 0;
  CAMBER_CHECK_MPI(MPI_Bcast(&plotted, 1, MPI_INT, 0, comm_));
  if (plotted) files.push_back(dir_ + "/" + name_ + "_optimizer.png");
  files.push_back(dir_ + "/" + name_ + "_final_design.csv");
  return files;
}

bool DesignRecord::write_history(const ShapeDesignResult& result) const {
  const std::string& name_ = settings_.name;
  const std::string& dir_ = settings_.dir;
  const std::string& objective_ = settings_.objective;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank != 0) return false;
  write_file_atomically(dir_ + "/" + name_ + "_optimizer_history.csv", csv_.str());
  DesignFile design;
  design.shape.assign(result.optimizer.x.begin(), result.optimizer.x.begin() + problem_.n_design());
  if (problem_.trims_alpha() || problem_.fixes_lift()) design.alpha_deg = result.final_alpha_points;
  write_design_file(dir_ + "/" + name_ + "_final_design.csv", design);
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
  return io::run_gnuplot(script, gp.str());
}

std::string DesignRecord::summary(const ShapeDesignResult& result, const std::string& geometry_rows,
                                  double seconds) const {
  const std::string& objective_ = settings_.objective;
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
  const opt::Result& o = result.optimizer;
  summary << geometry_rows << "\n  evaluations     " << o.n_evaluations << " (" << o.n_live_evaluations
          << " solved, " << o.n_failures << " failed)"
          << "\n  max violation   " << std::scientific << std::setprecision(2) << o.max_violation
          << "\n  stopped         " << opt::to_string(o.status) << ": " << o.message << std::fixed
          << std::setprecision(1) << "\n  wall time       " << seconds << " s";
  return summary.str();
}

std::string output_rows(const std::vector<std::string>& files) {
  std::string rows;
  for (size_t k = 0; k < files.size(); ++k)
    rows += (k ? "\n                  " : "\n  outputs         ") + files[k];
  return rows;
}

}  // namespace camber::solvers::aero
