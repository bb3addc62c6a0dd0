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
#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/ffd.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/core/log.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/su2_writer.hpp>
#include <camber/optimization/history.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/parallel/collectives.hpp>
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
  settings.steady.abs_tolerance = 1e-13;  // warm starts begin near round-off
  settings.warm_cfl_start = d.real("solver.warm_cfl_start");
  settings.warm_max_iterations = static_cast<int>(d.integer("solver.warm_max_iterations"));
  // `camber -v optimize`: every Newton step of every flow solve.
  settings.monitor = [](const eu::IterationReport& r) {
    logging::debug(CAMBER_MSG("  flow step " << r.iteration << std::scientific << std::setprecision(3)
                                             << "  res " << r.residual_density << "  cfl " << r.cfl
                                             << "  step " << r.step << "  ksp " << r.linear_iterations
                                             << std::fixed << std::setprecision(6) << "  CL " << r.forces.cl));
  };
  return settings;
}

design::IdwOptions idw_options(const deck::Deck& d) {
  design::IdwOptions o;
  o.exponent = d.real("design.idw_exponent");
  return o;
}

std::unique_ptr<design::ShapeParametrization> shape_parametrization(const deck::Deck& d,
                                                                    const mesh::Mesh& m,
                                                                    MPI_Comm comm) {
  const std::vector<std::string> wall = {d.string("design.wall")};
  const std::string kind = d.string("design.parametrization");
  std::unique_ptr<design::ShapeParametrization> p;
  collective_guard(comm, [&] {
    if (m.marker_index(wall[0]) < 0)
      d.reject("design.wall", "the mesh has no marker '" + wall[0] + "'");
    if (kind == "hicks_henne") {
      p = std::make_unique<design::HicksHenne>(
          m, wall, design::evenly_spaced_bumps(static_cast<int>(d.integer("design.bumps_per_surface"))));
    } else if (kind == "cst") {
      design::CstOptions o;
      o.order = static_cast<int>(d.integer("design.cst_order"));
      p = std::make_unique<design::Cst>(m, wall, o);
    } else {
      design::FfdOptions o;
      o.degree_x = static_cast<int>(d.integer("design.ffd_degree_x"));
      o.degree_y = static_cast<int>(d.integer("design.ffd_degree_y"));
      p = std::make_unique<design::FreeFormDeformation>(m, wall, o);
    }
  });
  return p;
}

}  // namespace euler_app

using namespace euler_app;

namespace {

// Thickness normal to the chord at chordwise stations, from the wall
// coordinates: each surface's normal coordinate interpolated linearly in
// the baseline chord coordinate (the parametrizations move the wall normal
// to the chord, so the stations' interpolation weights are fixed and the
// thickness is linear in the design: its gradient is exact by probing).
class Thickness {
 public:
  explicit Thickness(const design::AirfoilWall& wall) : wall_(&wall) {
    for (int s = 1; s < 50; ++s)
      stations_.push_back(0.5 * (1.0 - std::cos(M_PI * s / 50.0)));
    for (design::Surface side : {design::Surface::upper, design::Surface::lower}) {
      std::vector<index_t>& order = side == design::Surface::upper ? upper_ : lower_;
      for (index_t k = 0; k < wall.n_nodes(); ++k)
        if (wall.surface()[static_cast<size_t>(k)] == side) order.push_back(k);
      std::sort(order.begin(), order.end(), [&](index_t a, index_t b) {
        return wall.chord_coordinate()[static_cast<size_t>(a)] <
               wall.chord_coordinate()[static_cast<size_t>(b)];
      });
    }
  }
  size_t size() const { return stations_.size(); }
  const std::vector<double>& stations() const { return stations_; }

  // t at every station from wall coordinates {n_wall, 2}.
  std::vector<double> operator()(const Tensor& coords) const {
    const auto c = coords.host();
    const auto& n = wall_->normal();
    std::vector<double> t;
    for (double x : stations_) t.push_back(height(upper_, c, n, x) - height(lower_, c, n, x));
    return t;
  }

 private:
  template <class H>
  double height(const std::vector<index_t>& order, const H& c, const std::array<double, 2>& n,
                double x) const {
    const auto& xc = wall_->chord_coordinate();
    auto it = std::lower_bound(order.begin(), order.end(), x, [&](index_t k, double v) {
      return xc[static_cast<size_t>(k)] < v;
    });
    if (it == order.begin()) ++it;
    if (it == order.end()) --it;
    const index_t b = *it, a = *(it - 1);
    const double xa = xc[static_cast<size_t>(a)], xb = xc[static_cast<size_t>(b)];
    const double w = xb > xa ? (x - xa) / (xb - xa) : 0.0;
    const double ya = n[0] * c(a * 2) + n[1] * c(a * 2 + 1);
    const double yb = n[0] * c(b * 2) + n[1] * c(b * 2 + 1);
    return (1.0 - w) * ya + w * yb;
  }

  const design::AirfoilWall* wall_;
  std::vector<double> stations_;
  std::vector<index_t> upper_, lower_;
};

// The state file of the optimization checkpoint: the last converged flow.
void write_flow_state(const std::string& path, const eu::SteadyFlow& flow) {
  io::H5File file(path, io::Mode::create, flow.discretization().mesh().comm());
  write_conserved(file, flow.discretization().mesh(), flow.state());
  file.close();
}

// The wall as a Selig-ordered .dat file: upper surface from the trailing
// edge to the leading edge, then the lower surface back.
std::string selig_text(const std::string& title, const design::AirfoilWall& wall,
                       const Tensor& coords) {
  const auto c = coords.host();
  std::vector<index_t> upper, lower;
  for (index_t k = 0; k < wall.n_nodes(); ++k)
    (wall.surface()[static_cast<size_t>(k)] == design::Surface::upper ? upper : lower).push_back(k);
  const auto& x = wall.chord_coordinate();
  std::sort(upper.begin(), upper.end(), [&](index_t a, index_t b) {
    return x[static_cast<size_t>(a)] > x[static_cast<size_t>(b)];
  });
  std::sort(lower.begin(), lower.end(), [&](index_t a, index_t b) {
    return x[static_cast<size_t>(a)] < x[static_cast<size_t>(b)];
  });
  std::ostringstream out;
  out << title << '\n' << std::setprecision(10);
  for (index_t k : upper) out << c(k * 2) << ' ' << c(k * 2 + 1) << '\n';
  for (index_t k : lower) out << c(k * 2) << ' ' << c(k * 2 + 1) << '\n';
  return out.str();
}

double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

// ParaView fields of the objective's adjoint: psi per cell, and the surface
// sensitivity dJ/dn (the shape gradient at the wall nodes along the wall's
// unit normal, averaged over each wall face's two nodes) in the wall cells.
std::vector<io::Field> adjoint_fields(const eu::SteadyFlow& flow, const std::string& wall,
                                      const std::string& objective) {
  if (flow.sensitivities().empty()) return {};
  const eu::SteadyFlow::Sensitivity& s = flow.sensitivities().front();
  const eu::Discretization& disc = flow.discretization();
  mesh::DistributedMesh& dm = disc.mesh();
  const index_t n = disc.n_owned();
  io::Field psi{"Adjoint of " + objective + " (mass, x-momentum, y-momentum, energy)", 4, {}};
  io::Field dn{"Surface sensitivity d" + objective + "/dn [1/m]", 1,
               std::vector<double>(static_cast<size_t>(n), 0.0)};
  const auto ph = s.psi.host();
  for (index_t c = 0; c < n; ++c)
    for (int k = 0; k < 4; ++k) psi.values.push_back(ph(c * 4 + k));
  const auto gx = s.dX.host();
  const auto normal =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().face_normal);
  const auto area =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().face_area);
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto fo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().face_offsets());
  const auto fn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().face_nodes());
  const auto& node_gid = dm.node_global_ids();
  for (index_t f : dm.owned_marker_faces(wall)) {
    double v = 0.0;
    for (index_t q = fo(f); q < fo(f + 1); ++q) {
      const std::int64_t a = node_gid[static_cast<size_t>(fn(q))];
      // n_f points out of the fluid, into the body: the outward wall normal
      // (into the fluid) is -n_f.
      v -= (gx(a * 2) * normal(f, 0) + gx(a * 2 + 1) * normal(f, 1)) / area(f);
    }
    dn.values[static_cast<size_t>(left(f))] = v / static_cast<double>(fo(f + 1) - fo(f));
  }
  return {psi, dn};
}

}  // namespace

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

  const mesh::Mesh global = build_mesh(d, comm);
  const eu::SteadyFlowSettings settings = design_flow_settings(d, global, comm);
  std::unique_ptr<design::ShapeParametrization> shape = shape_parametrization(d, global, comm);
  const design::MeshDeformation idw(global, {d.string("design.wall")}, idw_options(d));
  const Thickness thickness(shape->wall());
  const index_t n = shape->n_design();
  eu::SteadyFlow flow(global, comm, settings);

  const std::string objective_name = d.string("optimizer.objective");
  const int objective = objective_name == "cl" ? 0 : objective_name == "cd" ? 1 : 2;
  const double fraction = d.real("optimizer.thickness_fraction");
  const double max_thickness_min = d.real("optimizer.max_thickness_min");
  const bool lift_constrained = d.string("optimizer.lift") == "at_least_baseline";
  const double bound = d.real("design.bound");

  // Thickness: t(a) = t0 + T a exactly (see Thickness); T by probing.
  const Tensor zero = Tensor::from_host({n}, std::vector<double>(static_cast<size_t>(n), 0.0));
  const std::vector<double> t0 = thickness(shape->wall_coordinates(zero));
  std::vector<std::vector<double>> T(thickness.size(), std::vector<double>(static_cast<size_t>(n)));
  for (index_t k = 0; k < n; ++k) {
    std::vector<double> e(static_cast<size_t>(n), 0.0);
    e[static_cast<size_t>(k)] = 1.0;
    const std::vector<double> tk = thickness(shape->wall_coordinates(Tensor::from_host({n}, e)));
    for (size_t s = 0; s < thickness.size(); ++s) T[s][static_cast<size_t>(k)] = tk[s] - t0[s];
  }
  const auto thickness_at = [&](const std::vector<double>& a) {
    std::vector<double> t = t0;
    for (size_t s = 0; s < t.size(); ++s)
      for (index_t k = 0; k < n; ++k) t[s] += T[s][static_cast<size_t>(k)] * a[static_cast<size_t>(k)];
    return t;
  };
  if (max_thickness_min > 0.0 && max_of(t0) < max_thickness_min)
    logging::warn(CAMBER_MSG("the baseline's largest thickness " << max_of(t0)
                                                                 << " is below "
                                                                    "optimizer.max_thickness_min = "
                                                                 << max_thickness_min
                                                                 << ": the optimizer starts from "
                                                                    "an infeasible design"));

  // The baseline (its CL for the lift constraint, its CD for scaling).
  logging::info(CAMBER_MSG("optimize: " << global.n_cells() << " cells on " << runtime.size()
                                        << (runtime.size() == 1 ? " rank" : " ranks") << ", "
                                        << n << " design variables ("
                                        << d.string("design.parametrization") << "), objective "
                                        << objective_name));
  const std::vector<double> base = flow.coefficients(design::deformed_coordinates(*shape, idw, zero))
                                       .to_vector();
  logging::info(CAMBER_MSG(std::setprecision(6) << "baseline: CL " << base[0] << ", CD " << base[1]
                                                << ", CM " << base[2] << ", max thickness "
                                                << max_of(t0) << " (" << flow.report().newton_iterations
                                                << " Newton steps, " << std::setprecision(3)
                                                << flow.report().solve_seconds << " s)"));

  // Constraints g <= 0: thickness stations, max thickness, lift.
  const int n_stations = fraction > 0.0 ? static_cast<int>(thickness.size()) : 0;
  const int n_ineq = n_stations + (max_thickness_min > 0.0 ? 1 : 0) + (lift_constrained ? 1 : 0);

  struct Extra {
    double cl = 0, cd = 0, cm = 0, seconds = 0, flow_seconds = 0, adjoint_seconds = 0;
    int newton = 0, adjoint = 0;
    bool cold = false;  // the warm start was abandoned for a cold one
  };
  std::vector<Extra> extras;  // per live evaluation, in order
  opt::Problem problem;
  problem.x0.assign(static_cast<size_t>(n), 0.0);
  problem.lower.assign(static_cast<size_t>(n), -bound);
  problem.upper.assign(static_cast<size_t>(n), bound);
  problem.n_inequality = n_ineq;
  problem.evaluate = [&](const std::vector<double>& a) {
    const auto t_start = std::chrono::steady_clock::now();
    const ad::Var av = ad::variable(Tensor::from_host({n}, a));
    const ad::Var X = design::deformed_coordinates(*shape, idw, av);
    try {
      design::check_cell_volumes(global, X.value());
    } catch (const Error& e) {
      throw opt::EvaluationFailed(e.what());
    }
    ad::Var c;
    try {
      c = flow.coefficients(X);
    } catch (const Error& e) {
      if (std::getenv("CAMBER_DUMP_FAILED")) mesh::write_su2(global.with_coordinates(X.value()), std::getenv("CAMBER_DUMP_FAILED"));
      throw opt::EvaluationFailed(e.what());
    }
    const std::vector<double> cv = c.value().to_vector();
    Extra ex;
    ex.cl = cv[0];
    ex.cd = cv[1];
    ex.cm = cv[2];
    ex.newton = flow.report().newton_iterations;
    ex.cold = flow.report().cold_restart;
    ex.flow_seconds = flow.report().solve_seconds;
    const auto gradient_of = [&](int m) {
      std::vector<double> w(3, 0.0);
      w[static_cast<size_t>(m)] = 1.0;
      ad::GradOptions go;
      go.retain_graph = true;
      std::vector<double> g;
      try {
        g = ad::vjp({c}, {av}, {ad::constant(Tensor::from_host({3}, w))}, go)[0].value().to_vector();
      } catch (const Error& e) {
        throw opt::EvaluationFailed(e.what());  // an adjoint that did not converge
      }
      ex.adjoint += flow.report().adjoint_iterations;
      ex.adjoint_seconds += flow.report().adjoint_seconds;
      return g;
    };
    opt::Evaluation e;
    e.objective = cv[static_cast<size_t>(objective)];
    e.objective_gradient = gradient_of(objective);
    const std::vector<double> t = thickness_at(a);
    for (int s = 0; s < n_stations; ++s) {
      e.inequality.push_back(fraction * t0[static_cast<size_t>(s)] - t[static_cast<size_t>(s)]);
      std::vector<double> g(static_cast<size_t>(n));
      for (index_t k = 0; k < n; ++k) g[static_cast<size_t>(k)] = -T[static_cast<size_t>(s)][static_cast<size_t>(k)];
      e.inequality_gradients.push_back(g);
    }
    if (max_thickness_min > 0.0) {
      const size_t s = static_cast<size_t>(std::max_element(t.begin(), t.end()) - t.begin());
      e.inequality.push_back(max_thickness_min - t[s]);
      std::vector<double> g(static_cast<size_t>(n));
      for (index_t k = 0; k < n; ++k) g[static_cast<size_t>(k)] = -T[s][static_cast<size_t>(k)];
      e.inequality_gradients.push_back(g);
    }
    if (lift_constrained) {
      e.inequality.push_back(base[0] - cv[0]);
      std::vector<double> g = gradient_of(0);
      for (double& x : g) x = -x;
      e.inequality_gradients.push_back(g);
    }
    ex.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    extras.push_back(ex);
    return e;
  };

  opt::Options options;
  options.algorithm = d.string("optimizer.algorithm");
  options.max_evaluations = static_cast<int>(d.integer("optimizer.max_iterations"));
  options.ftol_rel = d.real("optimizer.ftol_rel");
  options.xtol_rel = 1e-6;
  options.x_scale.assign(static_cast<size_t>(n), bound);
  options.objective_scale = 1.0 / std::max(std::abs(base[static_cast<size_t>(objective)]), 1e-6);
  options.constraint_scale.assign(static_cast<size_t>(n_ineq), 1.0 / bound);
  if (lift_constrained) options.constraint_scale.back() = 1.0 / std::max(std::abs(base[0]), 1e-6);
  options.constraint_tol = 1e-6;

  // The checkpoint: the history of k evaluations and the flow state after
  // evaluation k (the next warm start) in <case>_optimizer_state_<k>.h5.
  // The state is written first and the previous one removed only after the
  // history, so whenever the job dies the state matching the history's
  // length exists.
  const std::string history_path = dir + "/" + name + "_optimizer.history";
  const auto state_path = [&](std::size_t k) {
    return dir + "/" + name + "_optimizer_state_" + std::to_string(k) + ".h5";
  };
  if (runtime.rank() == 0) fs::create_directories(dir);
  CAMBER_CHECK_MPI(MPI_Barrier(comm));
  opt::Optimizer optimizer(problem, options, comm);
  if (restart) {
    opt::History h;
    collective_guard(comm, [&] {
      CAMBER_INPUT_REQUIRE(fs::exists(history_path), "--restart: no checkpoint '"
                                                         << history_path
                                                         << "'; run once without --restart");
      h = opt::load_history(history_path);
      CAMBER_INPUT_REQUIRE(fs::exists(state_path(h.size())),
                           "--restart: the checkpoint's flow state '" << state_path(h.size())
                                                                      << "' is missing");
    });
    mesh::DistributedMesh dm(global, comm);
    flow.set_state(read_conserved(state_path(h.size()), dm));
    logging::info(CAMBER_MSG("restart: replaying " << h.size() << " evaluations from "
                                                   << history_path));
    optimizer.replay(std::move(h));
  }

  // Per evaluation: progress, history CSV row, checkpoint, fields.
  std::ostringstream csv;
  csv << "evaluation,objective,max_violation,gradient_norm,best_objective,CL,CD,CM,"
         "newton_steps,adjoint_iterations,flow_seconds,adjoint_seconds,seconds,replayed\n"
      << std::setprecision(10);
  io::PvdSeries series(dir + "/" + name + "_designs.pvd", comm);
  size_t live = 0;
  optimizer.on_evaluation([&](const opt::Record& r) {
    Extra ex;
    if (!r.replayed && !r.failed && live < extras.size()) ex = extras[live++];
    std::ostringstream line;
    line << "design " << r.evaluation << "/" << options.max_evaluations << std::setprecision(6)
         << (r.failed ? "  FAILED: " + r.failure : "")
         << "  " << objective_name << " " << r.objective << "  violation " << std::scientific
         << std::setprecision(2) << r.max_violation << "  |grad| " << r.gradient_norm
         << std::fixed << std::setprecision(6) << "  best " << r.best_objective;
    if (r.replayed)
      line << "  (replayed)";
    else if (!r.failed)
      line << "  CL " << ex.cl << std::setprecision(2) << "  flow " << ex.newton << " steps "
           << (ex.cold ? "(warm start abandoned, solved cold) " : "")
           << ex.flow_seconds << " s, adjoint " << ex.adjoint << " its " << ex.adjoint_seconds
           << " s, total " << ex.seconds << " s";
    logging::info(line.str());
    csv << r.evaluation << ',' << r.objective << ',' << r.max_violation << ',' << r.gradient_norm
        << ',' << r.best_objective << ',' << ex.cl << ',' << ex.cd << ',' << ex.cm << ','
        << ex.newton << ',' << ex.adjoint << ',' << ex.flow_seconds << ',' << ex.adjoint_seconds
        << ',' << ex.seconds << ',' << (r.replayed ? 1 : 0)
        << '\n';
    const std::string file = io::series_file_name(name + "_design", r.evaluation) + ".pvtu";
    if (!r.replayed && !r.failed && r.evaluation == 1 && runtime.rank() == 0) {
      // The baseline gradient, e.g. hicks_henne_38.csv: d(objective)/da_k.
      std::ostringstream g;
      g << "variable,d" << objective_name << "_d_a\n" << std::setprecision(12);
      const opt::Evaluation& e = optimizer.history().front().values;
      for (size_t k = 0; k < e.objective_gradient.size(); ++k)
        g << k << ',' << e.objective_gradient[k] << '\n';
      write_file_atomically(dir + "/" + d.string("design.parametrization") + "_" + std::to_string(n) + ".csv",
                 g.str());
    }
    if (!r.replayed) {
      // Checkpoint (see state_path): state, history, then the old state.
      const std::size_t k = optimizer.history().size();
      write_flow_state(state_path(k), flow);
      if (runtime.rank() == 0) {
        opt::save_history(history_path, optimizer.history());
        std::error_code ec;
        fs::remove(state_path(k - 1), ec);
      }
    }
    if (!r.replayed && !r.failed) {
      if (d.boolean("output.paraview")) {
        const eu::Discretization& disc = flow.discretization();
        std::vector<io::Field> fields = flow_fields(disc, flow.state());
        for (io::Field& f : adjoint_fields(flow, d.string("design.wall"), objective_name))
          fields.push_back(std::move(f));
        io::write_pvtu(dir + "/" + io::series_file_name(name + "_design", r.evaluation),
                       disc.mesh().owned_piece(fields), comm);
        io::write_pvtp(dir + "/" + io::series_file_name(name + "_wall", r.evaluation),
                       disc.mesh().marker_surface(d.string("design.wall"), fields), comm);
        series.add(r.evaluation, file);
      }
    } else if (r.replayed && d.boolean("output.paraview") && fs::exists(dir + "/" + file)) {
      series.add(r.evaluation, file);
    }
  });
  const opt::Result result = optimizer.minimize();

  // The final design: its flow (warm start: a few steps), shape and mesh.
  const Tensor a_final = Tensor::from_host({n}, result.x);
  const Tensor X_final = design::deformed_coordinates(*shape, idw, a_final);
  const std::vector<double> final_c = flow.coefficients(X_final).to_vector();
  const std::vector<double> t_final = thickness_at(result.x);
  if (runtime.rank() == 0) {
    write_file_atomically(dir + "/" + name + "_optimizer_history.csv", csv.str());
    write_file_atomically(dir + "/" + name + "_final.dat",
               selig_text(name + " (camber optimize, final design)", shape->wall(),
                          shape->wall_coordinates(a_final)));
    std::ostringstream design_csv;
    design_csv << "variable,value\n" << std::setprecision(12);
    for (index_t k = 0; k < n; ++k) design_csv << k << ',' << result.x[static_cast<size_t>(k)] << '\n';
    write_file_atomically(dir + "/" + name + "_final_design.csv", design_csv.str());
    mesh::write_su2(global.with_coordinates(X_final), dir + "/" + name + "_final.su2");
    {
      const std::string script = dir + "/" + name + "_optimizer_plots.gp";
      std::ostringstream gp;
      gp << "set terminal pngcairo size 900,900 noenhanced\nset datafile separator ','\n"
         << "set grid\nset output '" << dir << "/" << name << "_optimizer.png'\n"
         << "set multiplot layout 3,1 title 'camber optimize: " << name << "'\n"
         << "set ylabel '" << objective_name << "'\nplot '" << dir << "/" << name
         << "_optimizer_history.csv' every ::1 using 1:2 with linespoints title 'objective', '' "
            "every ::1 using 1:5 with lines title 'best'\n"
         << "set ylabel 'violation'\nplot '' every ::1 using 1:3 with linespoints title "
            "'max violation'\n"
         << "set logscale y\nset ylabel '|gradient|'\nset xlabel 'evaluation'\nplot '' every "
            "::1 using 1:4 with linespoints title 'gradient norm'\nunset multiplot\n";
      run_gnuplot(script, gp.str());
    }
  }
  std::ostringstream summary;
  summary << std::fixed << std::setprecision(6) << "\n                  baseline    final"
          << "\n  CL              " << base[0] << "    " << final_c[0]
          << "\n  CD              " << base[1] << "    " << final_c[1]
          << "\n  CM              " << base[2] << "    " << final_c[2]
          << "\n  max thickness   " << max_of(t0) << "    " << max_of(t_final)
          << "\n  evaluations     " << result.n_evaluations << " (" << result.n_live_evaluations
          << " solved, " << result.n_failures << " failed)"
          << "\n  max violation   " << std::scientific << std::setprecision(2)
          << result.max_violation << "\n  stopped         " << opt::to_string(result.status)
          << ": " << result.message << std::fixed << std::setprecision(1)
          << "\n  wall time       " << elapsed() << " s"
          << "\n  outputs         " << dir << "/" << name
          << "_{optimizer_history.csv,optimizer.png,final.dat,final.su2,final_design.csv,designs.pvd}"
          << "\n                  " << dir << "/" << d.string("design.parametrization") << "_" << n
          << ".csv (the baseline gradient)";
  logging::info("summary:" + summary.str());
  return result.status == opt::Status::evaluation_failed ? 1 : 0;
}

}  // namespace camber::app
