#include "flow_case.hpp"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/enum_names.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/timer.hpp>
#include <camber/io/gnuplot.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/solvers/aero/flow_output.hpp>
#include <camber/solvers/aero/flow_state.hpp>
#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::aero {

namespace fs = std::filesystem;
namespace eu = euler;

namespace {

// The history's residuals and the wall Cp against x.
bool plot_flow(const std::string& dir, const std::string& name, int dim) {
  std::ostringstream gp;
  gp << "set terminal pngcairo size 900,600 noenhanced\n"
     << "set datafile separator ','\n"
     << "set key autotitle columnhead\n"
     << "set grid\n"
     << "set output '" << dir << "/" << name << "_convergence.png'\n"
     << "set title 'Convergence: " << name << "'\n"
     << "set xlabel 'Newton step'\nset ylabel 'L2 residual'\nset logscale y\n"
     << "set format y '%.0e'\n"
     << "plot '" << dir << "/" << name << "_history.csv' using 1:2 with linespoints title "
        "'density', '' using 1:3 with linespoints title 'all equations'\n"
     << "unset logscale y\nset format y '%g'\n"
     << "set output '" << dir << "/" << name << "_cp.png'\n"
     << "set title 'Surface pressure: " << name << "'\n"
     << "set xlabel 'x'\nset ylabel 'Cp'\nset yrange [*:*] reverse\n"
     << "plot '" << dir << "/" << name << "_cp.csv' using 1:" << (dim == 3 ? 4 : 3)
     << (dim == 3 ? " with points" : " with linespoints") << " pt 7 ps 0.5 title 'Cp'\n";
  return io::run_gnuplot(dir + "/" + name + "_plots.gp", gp.str());
}

// Cp against x/c at each spanwise station, upper and lower surfaces, one
// panel per station.
bool plot_stations(const std::string& dir, const std::string& name,
                   const std::vector<double>& etas, const std::string& reference) {
  const int columns = etas.size() > 3 ? 3 : static_cast<int>(etas.size());
  const int rows = static_cast<int>((etas.size() + 2) / 3);
  std::ostringstream gp;
  gp << std::setprecision(10) << "set terminal pngcairo size " << 420 * columns << ","
     << 340 * rows << " noenhanced\n"
     << "set datafile separator ','\nset grid\n"
     << "set output '" << dir << "/" << name << "_stations.png'\n"
     << "set multiplot layout " << rows << "," << columns << " title 'Surface pressure: " << name
     << "'\n"
     << "set xlabel 'x/c'\nset ylabel 'Cp'\nset yrange [*:*] reverse\n";
  for (double eta : etas) {
    gp << "set title 'eta = " << eta << "'\n"
       << "plot '" << dir << "/" << name << "_stations.csv' using ($1 == " << eta
       << " && $6 > 0 ? $2 : 1/0):5 with points pt 7 ps 0.5 title 'upper', '' using ($1 == "
       << eta << " && $6 < 0 ? $2 : 1/0):5 with points pt 6 ps 0.5 title 'lower'";
    if (!reference.empty())
      gp << ", '" << reference << "' using (abs($1 - " << eta
         << ") < 1e-9 ? $2 : 1/0):3 with points pt 2 ps 0.8 lc rgb 'black' title 'reference'";
    gp << "\n";
  }
  gp << "unset multiplot\n";
  return io::run_gnuplot(dir + "/" + name + "_stations.gp", gp.str());
}

void write_wall_cp_csv(const std::string& path, const std::vector<WallPoint>& cp, int dim) {
  std::ostringstream c;
  c << (dim == 3 ? "x,y,z,Cp\n" : "x,y,Cp\n") << std::setprecision(10);
  for (const WallPoint& p : cp) {
    c << p.x << ',' << p.y << ',';
    if (dim == 3) c << p.z << ',';
    c << p.cp << '\n';
  }
  write_file_atomically(path, c.str());
}

// The computed Cp against the reference's at the stations both have: a CSV
// and a table in the log.
void write_station_comparison(const std::string& path, const std::vector<SectionPoint>& stations,
                              const std::vector<SectionPoint>& reference,
                              const std::string& reference_file) {
  std::ostringstream r;
  r << "eta,compared,skipped,rms,max_abs,max_at_x_over_c,max_side\n" << std::setprecision(6);
  std::ostringstream table;
  table << "Cp against " << reference_file
        << " (computed - reference):\n     eta  points     rms  largest (x/c, side)";
  for (const SectionComparison& s : compare_sections(stations, reference)) {
    r << s.eta << ',' << s.compared << ',' << s.skipped << ',' << s.rms << ',' << s.max_abs << ','
      << s.max_at << ',' << s.max_side << '\n';
    table << "\n  " << std::fixed << std::setprecision(2) << std::setw(6) << s.eta << std::setw(8)
          << s.compared << std::setprecision(3) << std::setw(8) << s.rms << std::setw(9)
          << s.max_abs << " (" << std::setprecision(3) << s.max_at << ", "
          << (s.max_side > 0 ? "upper" : "lower") << ")";
  }
  write_file_atomically(path, r.str());
  logging::info(table.str());
}

// The fields for ParaView: a one-step series and, with walls, each wall's
// surface.
void write_paraview(const std::string& dir, const std::string& name,
                    const mesh::DistributedMesh& dm, const std::vector<io::Field>& fields,
                    const std::vector<std::string>& walls) {
  const std::string pvtu =
      io::write_pvtu(dir + "/" + io::series_file_name(name, 0), dm.owned_piece(fields), dm.comm());
  io::PvdSeries series(dir + "/" + name + ".pvd", dm.comm());
  series.add(0.0, fs::path(pvtu).filename().string());
  for (const std::string& wall : walls)
    io::write_pvtp(dir + "/" + name + "_" + wall, dm.marker_surface(wall, fields), dm.comm());
}

int comm_rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace

void write_history_csv(const std::string& path, const std::vector<eu::IterationReport>& history) {
  std::ostringstream h;
  h << "step,residual_density,residual_all,cfl,alpha,linear_iterations,CL,CD,CM,seconds\n"
    << std::setprecision(10);
  for (const eu::IterationReport& r : history)
    h << r.iteration << ',' << r.residual_density << ',' << r.residual_all << ',' << r.cfl << ','
      << r.step << ',' << r.linear_iterations << ',' << r.forces.cl << ',' << r.forces.cd << ','
      << r.forces.cm << ',' << r.seconds << '\n';
  write_file_atomically(path, h.str());
}

void write_span_load_csv(const std::string& dir, const std::string& stem, const SpanLoad& load) {
  const SpanEfficiency fit = span_efficiency(load, span_load_terms);
  double total = 0.0;
  for (size_t j = 0; j < load.lift.size(); ++j) total += load.lift[j] * (load.y_hi[j] - load.y_lo[j]);
  const double b = load.semi_span, a1 = total / (3.14159265358979323846 * b * b);
  std::ostringstream c;
  c << "y_lo,y_hi,eta,c_cl,c_cd,c_cl_elliptic\n" << std::setprecision(10);
  for (size_t j = 0; j < load.lift.size(); ++j) {
    const double y = 0.5 * (load.y_lo[j] + load.y_hi[j]);
    // The strip's mean of the elliptic load 4 b A_1 sqrt(1 - (y / b)^2).
    double mean = 0.0;
    for (int q = 0; q < 64; ++q) {
      const double u = (load.y_lo[j] + (q + 0.5) / 64.0 * (load.y_hi[j] - load.y_lo[j])) / b;
      mean += 4.0 * b * a1 * std::sqrt(std::max(0.0, 1.0 - u * u)) / 64.0;
    }
    c << load.y_lo[j] << ',' << load.y_hi[j] << ',' << y / b << ',' << load.lift[j] << ','
      << load.drag[j] << ',' << mean << '\n';
  }
  write_file_atomically(dir + "/" + stem + "_span_load.csv", c.str());
  std::ostringstream gp;
  gp << "set terminal pngcairo size 640,420 noenhanced\n"
     << "set datafile separator ','\nset grid\nset key bottom left\n"
     << "set output '" << dir << "/" << stem << "_span_load.png'\n"
     << "set title 'Span load: " << stem << "'\n"
     << "set xlabel 'y / b'\nset ylabel 'c cl'\nset yrange [0:*]\n"
     << "plot '" << dir << "/" << stem << "_span_load.csv' using 3:4 with linespoints pt 7 ps 0.5 "
     << "title 'computed', '' using 3:6 with lines title 'elliptic, the same lift'\n";
  io::run_gnuplot(dir + "/" + stem + "_span_load.gp", gp.str());
  std::ostringstream a;
  for (size_t k = 1; k < fit.a.size(); ++k)
    a << (k > 1 ? ", " : "") << "A" << 2 * k + 1 << "/A1 " << fit.a[k] / fit.a[0];
  logging::info(CAMBER_MSG(std::setprecision(5)
                           << "wrote " << dir << "/" << stem << "_span_load.csv: span efficiency "
                           << fit.e << " of the load's lifting-line fit (" << a.str()
                           << "), largest gap from the elliptic load " << fit.elliptic_gap
                           << " of the largest load"));
}

void write_station_csv(const std::string& dir, const std::string& stem,
                       const std::vector<SectionPoint>& stations, const std::vector<double>& etas,
                       const std::string& reference_file) {
  std::ostringstream st;
  st << "eta,x_over_c,x,z,Cp,side\n" << std::setprecision(10);
  for (const SectionPoint& q : stations)
    st << q.eta << ',' << q.x_over_c << ',' << q.x << ',' << q.z << ',' << q.cp << ',' << q.side
       << '\n';
  write_file_atomically(dir + "/" + stem + "_stations.csv", st.str());
  const bool png = plot_stations(dir, stem, etas, reference_file);
  logging::info("wrote " + dir + "/" + stem + "_stations.csv" + (png ? " and _stations.png" : ""));
}

FlowCaseResult solve_flow_case(mesh::DistributedMesh dm, const FlowCaseSettings& s) {
  const MPI_Comm comm = dm.comm();
  const int rank = comm_rank_of(comm);
  const std::string& name = s.name;
  const std::string& dir = s.dir;
  collective_guard(comm, [&] {
    std::vector<std::string> markers;
    for (const mesh::Marker& mk : dm.local().markers()) markers.push_back(mk.name);
    const eu::BoundaryProblem problem = eu::check_boundary_conditions(markers, s.conditions);
    CAMBER_INPUT_REQUIRE(problem.kind == eu::BoundaryProblem::Kind::none, problem.message);
    CAMBER_INPUT_REQUIRE(s.stations.empty() || dm.local().dim() == 3,
                         "spanwise stations need a 3-D mesh; this one is 2-D");
  });
  if (rank == 0) fs::create_directories(dir);
  eu::Discretization disc(dm, s.flow, s.conditions, s.scheme, s.spatial);
  logging::info(CAMBER_MSG("euler: " << dm.n_global_cells() << " cells on " << dm.size()
                                     << (dm.size() == 1 ? " rank" : " ranks") << ", M = "
                                     << s.flow.mach << ", alpha = " << s.flow.alpha_deg
                                     << " deg, flux " << enum_name(eu::flux_scheme_names, s.scheme)
                                     << ", order " << s.spatial.order
                                     << (s.spatial.order == 2
                                             ? ", limiter " + std::string(enum_name(
                                                                  eu::limiter_kind_names,
                                                                  s.spatial.limiter))
                                             : std::string())));

  eu::SteadyOptions so = s.steady;
  const std::string state_path = dir + "/" + name + ".h5";
  Tensor U = disc.free_stream_field();
  if (s.restart) {
    collective_guard(comm, [&] {
      CAMBER_INPUT_REQUIRE(fs::exists(state_path), "restart: no state file '"
                                                       << state_path << "'; run once without "
                                                       << "restart (with the state written)");
    });
    so.reference_residual = read_steady_state(state_path, disc, U);
    logging::info("restart from " + state_path);
    so.first_order_drop = 0.0;  // the state is already a solution of this order's iteration
  }
  // The residual this run's convergence is measured against: the state
  // file keeps it, so a restart stops where one uninterrupted run would.
  const auto reference_of = [&](const eu::SteadyResult& r) {
    return so.reference_residual > 0.0 ? so.reference_residual : r.reference_residual;
  };
  std::vector<std::string> walls;
  for (const eu::BoundaryCondition& bc : s.conditions)
    if (bc.kind == eu::BoundaryKind::slip_wall) walls.push_back(bc.marker);
  const std::string history_path = dir + "/" + name + "_history.csv";

  FlowCaseResult out;
  out.cells = dm.n_global_cells();
  out.ranks = dm.size();
  std::vector<eu::IterationReport> steps;  // the history so far, kept should the solve fail
  try {
    ScopedTimer t("solve");
    out.solve = eu::solve_steady(disc, U, so, [&](const eu::IterationReport& r) {
      if (s.monitor) s.monitor(r);
      steps.push_back(r);
    });
  } catch (const Error&) {
    // The solver keeps the last good state in U: save it for a restart,
    // with the history up to it and its fields (where the flow went wrong).
    out.solve.history = steps;
    if (rank == 0) write_history_csv(history_path, steps);
    if (s.paraview) write_paraview(dir, name, dm, flow_fields(disc, U), {});
    if (s.state)
      write_steady_state(state_path, disc, U, out.solve, reference_of(out.solve), s.labels);
    logging::info("wrote the last good state and " + history_path);
    throw;
  }
  out.reference_residual = reference_of(out.solve);
  const double rn = out.solve.history.back().residual_density;
  out.orders = rn > 0.0 && out.reference_residual > 0.0 ? std::log10(out.reference_residual / rn)
                                                         : 0.0;

  ScopedTimer t("output");
  const std::vector<WallPoint> cp = wall_cp(disc, U, s.conditions);
  const std::vector<SectionPoint> stations =
      s.stations.empty() ? std::vector<SectionPoint>{} : wing_sections(disc, U, walls, s.stations);
  const SpanLoad load =
      s.stations.empty() ? SpanLoad{} : span_load(disc, U, walls, span_load_strips);
  if (rank == 0) {
    write_history_csv(history_path, out.solve.history);
    write_wall_cp_csv(dir + "/" + name + "_cp.csv", cp, disc.dim());
    const bool png = plot_flow(dir, name, disc.dim());
    if (!stations.empty()) write_station_csv(dir, name, stations, s.stations, s.reference_file);
    if (!load.lift.empty()) write_span_load_csv(dir, name, load);
    if (!s.reference.empty())
      write_station_comparison(dir + "/" + name + "_stations_reference.csv", stations, s.reference,
                               s.reference_file);
    logging::info("wrote " + history_path + " and _cp.csv" +
                  (png ? ", and their plots _convergence.png and _cp.png" : ""));
  }
  if (s.paraview) {
    write_paraview(dir, name, dm, flow_fields(disc, U), walls);
    logging::info("wrote " + dir + "/" + name + ".pvd and the wall surfaces (ParaView)");
  }
  if (s.state) {
    ScopedTimer th("write_hdf5");
    write_steady_state(state_path, disc, U, out.solve, out.reference_residual, s.labels);
    logging::info("wrote " + state_path + " (state for a restart)");
  }
  return out;
}

}  // namespace camber::solvers::aero
