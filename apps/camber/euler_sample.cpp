// `camber sample` for an euler deck: steady flows over a Latin-hypercube
// design of (Mach, alpha) and, with sample.shape, of the design section's
// shape variables, solved by groups of ranks at once, written as an nn data
// set (inputs mach, alpha_deg[, shape_0 ..]; outputs CL, CD, CM[, t_max])
// for `camber train`. With sample.gradients (implied by sample.shape) every
// sample also carries the gradients of its outputs with respect to every
// input: one adjoint solve per force coefficient, over all inputs at once
// (aero::AirfoilDesign::sample). Every finished flow is recorded in
// <dir>/<case>_samples.csv (rewritten atomically after each round), and a
// run on the same deck continues with the flows that file does not hold
// yet.
#include "mesh_source.hpp"
#include "euler_common.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/ensemble.hpp>
#include <camber/nn/init.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/sampling.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace {

// The design's columns: mach, alpha_deg, then the shape variables.
struct Space {
  int n_shape = 0;
  bool gradients = false;
  std::vector<std::array<double, 2>> ranges;  // per input
  nn::Columns inputs, outputs;
  int n_in() const { return static_cast<int>(ranges.size()); }
  int n_out() const { return static_cast<int>(outputs.names.size()); }
  // One finished flow in a flat record: index, outputs, gradients (n_out
  // rows of n_in, when kept), converged, iterations.
  int width() const { return 1 + n_out() + (gradients ? n_out() * n_in() : 0) + 2; }
};

// The design and what its flows depend on besides (the mesh's cell count,
// the scheme's order and limiter): a continued run on another grid or
// scheme is refused instead of mixing flows of two discretizations.
std::string design_line(const deck::Deck& d, const Space& space, std::int64_t cells) {
  std::ostringstream s;
  s.precision(17);
  const auto& m = d.reals("sample.mach");
  const auto& a = d.reals("sample.alpha_deg");
  s << "# design count=" << d.integer("sample.count") << " seed=" << d.integer("sample.seed")
    << " mach=" << m[0] << "," << m[1] << " alpha_deg=" << a[0] << "," << a[1];
  if (space.n_shape > 0)
    s << " shape=" << space.ranges.back()[0] << "," << space.ranges.back()[1] << " shape_variables="
      << space.n_shape << " parametrization=" << d.string("design.parametrization");
  if (space.gradients) s << " gradients=1";
  s << " cells=" << cells << " order=" << d.integer("flow.order")
    << " limiter=" << d.string("flow.limiter");
  return s.str();
}

std::string csv_columns(const Space& space) {
  std::string s = "index";
  for (const std::string& n : space.inputs.names) s += "," + n;
  for (const std::string& n : space.outputs.names) s += "," + n;
  if (space.gradients)
    for (const std::string& o : space.outputs.names)
      for (const std::string& i : space.inputs.names) s += ",d" + o + "/d" + i;
  return s + ",converged,iterations";
}

// The flows a previous run finished (rank 0 reads; the caller broadcasts):
// index -> the flat record.
std::map<int, std::vector<double>> read_done(const std::string& path, const std::string& design,
                                             const Space& space,
                                             std::map<int, std::vector<double>>& inputs) {
  std::map<int, std::vector<double>> done;
  std::ifstream in(path);
  if (!in) return done;
  std::string line;
  std::getline(in, line);
  CAMBER_INPUT_REQUIRE(line == design, path << " holds another design (\"" << line
                                            << "\"); remove it or change the case name");
  std::getline(in, line);
  CAMBER_INPUT_REQUIRE(line == csv_columns(space), path << ":2: the columns are not this design's");
  // A line: index, inputs, then the record after its index.
  const size_t fields = static_cast<size_t>(1 + space.n_in() + space.width() - 1);
  int number = 2;
  while (std::getline(in, line)) {
    ++number;
    std::vector<double> v;
    std::stringstream row(line);
    std::string item;
    while (std::getline(row, item, ',')) {
      char* end = nullptr;
      v.push_back(std::strtod(item.c_str(), &end));
      CAMBER_INPUT_REQUIRE(end != item.c_str() && *end == '\0',
                           path << ":" << number << ": '" << item << "' is not a number");
    }
    CAMBER_INPUT_REQUIRE(v.size() == fields, path << ":" << number << ": " << v.size()
                                                  << " values, expected " << fields);
    std::vector<double> record{v[0]};
    record.insert(record.end(), v.begin() + 1 + space.n_in(), v.end());
    inputs[static_cast<int>(v[0])] = std::vector<double>(v.begin() + 1, v.begin() + 1 + space.n_in());
    done[static_cast<int>(v[0])] = std::move(record);
  }
  return done;
}

// The next active-learning batch: an ensemble of four networks fitted to
// the converged flows among `done` with index below `first` (values, and
// gradients when sampled; inputs scaled by their ranges, outputs by their
// spread), scored on a Latin hypercube of sample.active_candidates points
// (seed `seed`), the `count` where it disagrees most (nn::most_disagreeing,
// spacing 0.2 of the ranges). Collective; the same on every rank.
std::vector<std::vector<double>> active_batch(const deck::Deck& d, const Space& space,
                                              const std::vector<std::vector<double>>& design,
                                              const std::map<int, std::vector<double>>& done,
                                              int first, int count, std::uint64_t seed,
                                              MPI_Comm comm) {
  const int n_in = space.n_in(), n_out = space.n_out(), width = space.width();
  std::vector<double> x, y, g;
  for (const auto& [i, r] : done) {
    if (i >= first || r[static_cast<size_t>(width - 2)] == 0) continue;
    const std::vector<double>& xi = design[static_cast<size_t>(i)];
    x.insert(x.end(), xi.begin(), xi.end());
    y.insert(y.end(), r.begin() + 1, r.begin() + 1 + n_out);
    if (space.gradients) g.insert(g.end(), r.begin() + 1 + n_out, r.begin() + 1 + n_out + n_out * n_in);
  }
  const index_t rows = static_cast<index_t>(y.size() / static_cast<size_t>(n_out));
  CAMBER_REQUIRE(rows >= 2, "active learning needs two converged flows to fit; it has " << rows);
  nn::Normalization in_stats, out_stats;
  for (const auto& range : space.ranges) {
    in_stats.mean.push_back(0.5 * (range[0] + range[1]));
    in_stats.stddev.push_back(0.5 * (range[1] - range[0]));
  }
  for (int o = 0; o < n_out; ++o) {
    double mean = 0.0, var = 0.0;
    for (index_t r = 0; r < rows; ++r) mean += y[static_cast<size_t>(r * n_out + o)];
    mean /= static_cast<double>(rows);
    for (index_t r = 0; r < rows; ++r)
      var += (y[static_cast<size_t>(r * n_out + o)] - mean) * (y[static_cast<size_t>(r * n_out + o)] - mean);
    out_stats.mean.push_back(mean);
    out_stats.stddev.push_back(std::max(std::sqrt(var / static_cast<double>(rows)), 1e-12));
  }
  nn::EnsembleOptions o;
  o.members = 4;
  o.hidden = {32, 32};
  o.epochs = 300;
  o.batch_size = 16;
  o.gradient_weight = space.gradients ? 1.0 : 0.0;
  o.seed = seed;
  nn::Ensemble ensemble(space.inputs, space.outputs, in_stats, out_stats, o, comm);
  ensemble.fit(Tensor::from_host({rows, n_in}, x), Tensor::from_host({rows, n_out}, y),
               space.gradients ? Tensor::from_host({rows, n_out, n_in}, g) : Tensor());
  const int m = static_cast<int>(d.integer("sample.active_candidates"));
  const std::vector<std::vector<double>> pool = nn::latin_hypercube(m, seed, space.ranges);
  std::vector<double> flat;
  for (const auto& p : pool) flat.insert(flat.end(), p.begin(), p.end());
  std::vector<double> range_width;
  for (const auto& range : space.ranges) range_width.push_back(range[1] - range[0]);
  const std::vector<index_t> picks = nn::most_disagreeing(
      ensemble, Tensor::from_host({m, n_in}, flat), count, range_width, out_stats.stddev, 0.2);
  std::vector<std::vector<double>> out;
  for (index_t p : picks) out.push_back(pool[static_cast<size_t>(p)]);
  return out;
}

// The sample space of the deck: with sample.shape, the design section's
// parametrization is built on `dm` to count its variables.
Space sample_space(const deck::Deck& d, const mesh::DistributedMesh& dm, MPI_Comm comm,
                   std::unique_ptr<design::ShapeParametrization>& shape) {
  Space s;
  const std::vector<double>& range = d.reals("sample.shape");
  s.gradients = d.boolean("sample.gradients") || !range.empty();
  s.ranges = {{d.reals("sample.mach")[0], d.reals("sample.mach")[1]},
              {d.reals("sample.alpha_deg")[0], d.reals("sample.alpha_deg")[1]}};
  s.inputs = {{"mach", "alpha_deg"}, {"", "deg"}};
  s.outputs = {{"CL", "CD", "CM"}, {"", "", ""}};
  collective_guard(comm, [&] {
    if (!range.empty()) {
      const double bound = d.real("design.bound");
      if (!(range[0] < range[1]))
        d.reject("sample.shape", CAMBER_MSG("[" << range[0] << ", " << range[1]
                                                << "] is no range (low < high)"));
      if (range[0] < -bound || range[1] > bound)
        d.reject("sample.shape", CAMBER_MSG("[" << range[0] << ", " << range[1]
                                                << "] lies outside [-design.bound, design.bound] = ["
                                                << -bound << ", " << bound << "]"));
      if (d.string("design.parametrization") == "ffd_volume")
        d.reject("design.parametrization",
                 "camber sample varies the shape of 2-D meshes (hicks_henne, cst or ffd)");
    }
    if (s.gradients && d.boolean("flow.far_field_vortex"))
      d.reject("flow.far_field_vortex",
               "the sampled gradients hold the far field fixed, so they would not be the "
               "derivative of a lift-dependent far field; use a far field of many chords");
  });
  if (s.gradients || !range.empty()) shape = euler_app::shape_parametrization(d, dm, comm);
  if (!range.empty()) {
    s.n_shape = static_cast<int>(shape->n_design());
    for (int k = 0; k < s.n_shape; ++k) {
      s.ranges.push_back({range[0], range[1]});
      s.inputs.names.push_back("shape_" + std::to_string(k));
      s.inputs.units.push_back("chord");
    }
    s.outputs.names.push_back("t_max");
    s.outputs.units.push_back("chord");
  }
  return s;
}

}  // namespace

namespace euler_app {

FlowSetup flow_setup(const deck::Deck& d, MPI_Comm comm) {
  FlowSetup s;
  s.dm = build_distributed_mesh(d, comm, 2, "camber sample");
  s.conditions = boundary_conditions(d, s.dm.local(), comm);
  return s;
}

eu::SteadyResult solve_flow_at(const deck::Deck& d, FlowSetup& setup, double mach,
                               double alpha_deg) {
  eu::FlowConditions flow = flow_conditions(d);
  flow.mach = mach;
  flow.alpha_deg = alpha_deg;
  eu::Discretization disc(setup.dm, flow, setup.conditions, flux_scheme(d), spatial_options(d));
  Tensor U = disc.free_stream_field();
  ScopedTimer t("solve");
  return eu::solve_steady(disc, U, steady_options(d), {});
}

}  // namespace euler_app

int sample_euler(const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
  using namespace euler_app;
  const MPI_Comm comm = runtime.comm();
  const int rank = runtime.rank(), size = runtime.size();
  const int rps = static_cast<int>(d.integer("sample.ranks_per_sample"));
  collective_guard(comm, [&] {
    if (size % rps != 0)
      d.reject("sample.ranks_per_sample",
               CAMBER_MSG(size << " ranks are not a multiple of " << rps));
  });
  const int n_groups = size / rps, group = rank / rps;
  MPI_Comm gcomm = MPI_COMM_NULL;
  CAMBER_CHECK_MPI(MPI_Comm_split(comm, group, rank, &gcomm));
  const bool leader = comm_rank(gcomm) == 0;

  solvers::petsc::PetscSession petsc(options.petsc_options);
  // Each group's flows: from free stream at each (mach, alpha) without
  // gradients; with them (and with shape variables) the design problem of
  // `camber optimize` on the group's ranks, warm-started from its last flow.
  FlowSetup setup = flow_setup(d, gcomm);
  std::unique_ptr<design::ShapeParametrization> shape;
  const Space space = sample_space(d, setup.dm, comm, shape);
  std::unique_ptr<aero::AirfoilDesign> problem;
  if (space.gradients) {
    aero::AirfoilDesignSettings settings;
    settings.flow = design_flow_settings(d, setup.dm.local(), gcomm);
    settings.wall = d.string("design.wall");
    settings.deformation = deformation_options(d);
    settings.bound = d.real("design.bound");
    problem = std::make_unique<aero::AirfoilDesign>(setup.dm, std::move(shape), settings);
  }
  const int n_in = space.n_in(), n_out = space.n_out(), width = space.width();

  const std::string name = d.string("case"), dir = d.string("output.dir");
  const std::string csv = dir + "/" + name + "_samples.csv";
  const std::string h5 = dir + "/" + name + "_samples.h5";
  const int n = static_cast<int>(d.integer("sample.count"));
  const std::uint64_t seed = static_cast<std::uint64_t>(d.integer("sample.seed"));
  std::vector<std::vector<double>> design = nn::latin_hypercube(n, seed, space.ranges);
  const int rounds = static_cast<int>(d.integer("sample.active_rounds"));
  const int batch = static_cast<int>(d.integer("sample.active_batch"));
  collective_guard(comm, [&] {
    if (rounds == 0) return;
    if (n < 2)
      d.reject("sample.active_rounds",
               CAMBER_MSG("active learning fits networks to the first flows; sample.count = "
                          << n << " gives fewer than 2"));
    if (batch > d.integer("sample.active_candidates"))
      d.reject("sample.active_batch",
               CAMBER_MSG(batch << " flows per round exceed sample.active_candidates = "
                                << d.integer("sample.active_candidates")));
  });
  const std::string header =
      design_line(d, space, setup.dm.n_global_cells()) +
      (rounds > 0 ? CAMBER_MSG(", then " << rounds << " active rounds of " << batch << " from "
                                         << d.integer("sample.active_candidates") << " candidates")
                  : std::string());

  std::map<int, std::vector<double>> done, done_inputs;
  collective_guard(comm, [&] {
    if (rank == 0) {
      fs::create_directories(dir);
      done = read_done(csv, header, space, done_inputs);
    }
  });
  {
    std::vector<double> flat;
    for (const auto& [i, r] : done) flat.insert(flat.end(), r.begin(), r.end());
    int count = static_cast<int>(flat.size());
    CAMBER_CHECK_MPI(MPI_Bcast(&count, 1, MPI_INT, 0, comm));
    flat.resize(static_cast<size_t>(count));
    CAMBER_CHECK_MPI(MPI_Bcast(flat.data(), count, MPI_DOUBLE, 0, comm));
    done.clear();
    for (size_t k = 0; k < flat.size(); k += static_cast<size_t>(width))
      done[static_cast<int>(flat[k])] = std::vector<double>(flat.begin() + static_cast<std::ptrdiff_t>(k),
                                                            flat.begin() + static_cast<std::ptrdiff_t>(k + width));
  }
  std::vector<int> pending;
  for (int i = 0; i < n; ++i)
    if (done.count(i) == 0) pending.push_back(i);
  logging::info(CAMBER_MSG("sample: " << n << " flows (Latin hypercube, seed "
                                      << d.integer("sample.seed") << ") over " << n_in << " inputs"
                                      << (space.n_shape > 0 ? " (" + std::to_string(space.n_shape) +
                                                                  " shape variables, " +
                                                                  d.string("design.parametrization") + ")"
                                                            : std::string())
                                      << (space.gradients ? ", with adjoint gradients" : "") << ", "
                                      << done.size() << " done before, " << pending.size()
                                      << " to solve by " << n_groups
                                      << (n_groups == 1 ? " group" : " groups") << " of " << rps
                                      << (rps == 1 ? " rank" : " ranks")));

  const auto write_csv = [&]() {
    std::ostringstream s;
    s << header << "\n" << csv_columns(space) << "\n";
    s.precision(17);
    for (const auto& [i, r] : done) {
      s << i;
      // An active round's flows read back before the round is placed
      // again: their inputs as read.
      for (double v : static_cast<size_t>(i) < design.size() ? design[static_cast<size_t>(i)]
                                                             : done_inputs.at(i))
        s << ',' << v;
      for (size_t k = 1; k < r.size(); ++k) s << ',' << r[k];
      s << '\n';
    }
    write_file_atomically(csv, s.str());
  };

  // One flow: the record (index, outputs, gradients, converged, iterations).
  const auto solve = [&](int i) {
    const std::vector<double>& x = design[static_cast<size_t>(i)];
    std::vector<double> r(static_cast<size_t>(width), 0.0);
    r[0] = i;
    if (!problem) {
      const eu::SteadyResult f = solve_flow_at(d, setup, x[0], x[1]);
      r[1] = f.forces.cl;
      r[2] = f.forces.cd;
      r[3] = f.forces.cm;
      r[static_cast<size_t>(width - 2)] = f.converged ? 1.0 : 0.0;
      r[static_cast<size_t>(width - 1)] = f.iterations;
      return r;
    }
    std::vector<double> a(static_cast<size_t>(problem->n_design()), 0.0);
    for (int k = 0; k < space.n_shape; ++k) a[static_cast<size_t>(k)] = x[static_cast<size_t>(2 + k)];
    try {
      ScopedTimer t("solve");
      const aero::DesignSample s = problem->sample(a, x[0], x[1]);
      // The problem's order is (shape.., mach, alpha); the data set's
      // (mach, alpha, shape..).
      const size_t nd = a.size();
      for (int o = 0; o < n_out; ++o) {
        const std::vector<double>& g = s.gradients[static_cast<size_t>(o)];
        r[static_cast<size_t>(1 + o)] = s.values[static_cast<size_t>(o)];
        double* row = r.data() + 1 + n_out + o * n_in;
        row[0] = g[nd];
        row[1] = g[nd + 1];
        for (int k = 0; k < space.n_shape; ++k) row[2 + k] = g[static_cast<size_t>(k)];
      }
      r[static_cast<size_t>(width - 2)] = 1.0;
      r[static_cast<size_t>(width - 1)] = s.newton_iterations;
    } catch (const Error& e) {
      // A flow or an adjoint that did not converge, or a folded cell (every
      // rank of the group alike): recorded, and left out of the data set.
      if (leader) logging::warn(CAMBER_MSG("flow #" << i << ": " << e.what()));
    }
    return r;
  };

  const auto solve_pending = [&](const std::vector<int>& queue) {
  for (size_t round = 0; round * n_groups < queue.size(); ++round) {
    std::vector<double> mine(static_cast<size_t>(width), 0.0);
    mine[0] = -1;
    const size_t slot = round * static_cast<size_t>(n_groups) + static_cast<size_t>(group);
    if (slot < queue.size()) mine = solve(queue[slot]);
    // Every rank learns every group leader's result.
    if (!leader) {
      std::fill(mine.begin(), mine.end(), 0.0);
      mine[0] = -1;
    }
    std::vector<double> all(static_cast<size_t>(width * size));
    CAMBER_CHECK_MPI(MPI_Allgather(mine.data(), width, MPI_DOUBLE, all.data(), width, MPI_DOUBLE, comm));
    for (int k = 0; k < size; ++k) {
      const double* r = all.data() + static_cast<size_t>(width * k);
      if (r[0] < 0) continue;
      const int i = static_cast<int>(r[0]);
      done[i] = std::vector<double>(r, r + width);
      const std::vector<double>& x = design[static_cast<size_t>(i)];
      std::ostringstream line;
      line << "flow " << done.size() << "/" << n + rounds * batch << ": #" << i << " M " << std::fixed
           << std::setprecision(4) << x[0] << ", alpha " << x[1] << " deg";
      if (space.n_shape > 0) line << ", " << space.n_shape << " shape variables";
      line << " -> CL " << std::setprecision(5) << r[1] << " CD " << r[2] << " CM " << r[3];
      if (space.n_shape > 0) line << " t " << r[4];
      line << (r[width - 2] > 0 ? "" : " (not converged)") << ", "
           << static_cast<int>(r[width - 1]) << " steps";
      logging::info(line.str());
    }
    if (rank == 0) write_csv();
  }
  };
  solve_pending(pending);
  // Active learning: each round fits an ensemble to the flows so far and
  // solves the batch where it disagrees most. A continued run recomputes
  // the rounds it finished from the same rows (read back exactly), so it
  // places them where the first run did; their inputs are checked.
  for (int r = 1; r <= rounds; ++r) {
    const int first = n + (r - 1) * batch;
    bool all_done = true;
    for (int i = first; i < first + batch; ++i) all_done = all_done && done.count(i) > 0;
    std::vector<int> next;
    {
      ScopedTimer t("active learning");
      const std::vector<std::vector<double>> picks =
          active_batch(d, space, design, done, first, batch, seed + static_cast<std::uint64_t>(r), comm);
      for (int k = 0; k < batch; ++k) {
        design.push_back(picks[static_cast<size_t>(k)]);
        if (done.count(first + k) == 0) next.push_back(first + k);
      }
    }
    collective_guard(comm, [&] {
      if (rank != 0) return;
      for (int k = 0; k < batch; ++k) {
        const auto it = done_inputs.find(first + k);
        if (it == done_inputs.end()) continue;
        double worst = 0.0;
        for (size_t c = 0; c < it->second.size(); ++c)
          worst = std::max(worst, std::abs(it->second[c] - design[static_cast<size_t>(first + k)][c]) /
                                      (space.ranges[c][1] - space.ranges[c][0]));
        CAMBER_INPUT_REQUIRE(worst <= 1e-12,
                             csv << ": flow #" << first + k << " of active round " << r
                                 << " lies elsewhere than this run places it (by " << worst
                                 << " of a range); remove the file to sample again");
      }
    });
    logging::info(CAMBER_MSG("active round " << r << "/" << rounds << ": " << batch
                                             << " flows where the ensemble disagrees most"
                                             << (all_done ? " (done before)" : "")));
    solve_pending(next);
  }
  problem.reset();
  MPI_Comm_free(&gcomm);

  // The data set: converged flows only, rows held by rank 0.
  std::vector<double> x, y, g;
  int failed = 0;
  if (rank == 0)
    for (const auto& [i, r] : done) {
      if (r[static_cast<size_t>(width - 2)] == 0) {
        ++failed;
        continue;
      }
      const std::vector<double>& xi = design[static_cast<size_t>(i)];
      x.insert(x.end(), xi.begin(), xi.end());
      y.insert(y.end(), r.begin() + 1, r.begin() + 1 + n_out);
      if (space.gradients)
        g.insert(g.end(), r.begin() + 1 + n_out, r.begin() + 1 + n_out + n_out * n_in);
    }
  const index_t rows = static_cast<index_t>(y.size() / static_cast<size_t>(n_out));
  CAMBER_CHECK_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, comm));
  nn::io::write_dataset(h5, Tensor::from_host({rows, n_in}, x), Tensor::from_host({rows, n_out}, y),
                        space.inputs, space.outputs, comm, deck_text(d),
                        space.gradients ? Tensor::from_host({rows, n_out, n_in}, g) : Tensor());
  const std::string left_out =
      failed > 0 ? ", " + std::to_string(failed) + " not converged and left out" : std::string();
  logging::info(CAMBER_MSG("wrote " << h5 << " (" << n + rounds * batch - failed << " flows" << left_out
                                    << (space.gradients ? ", with gradients" : "") << ") and " << csv));
  return 0;
}

}  // namespace camber::app
