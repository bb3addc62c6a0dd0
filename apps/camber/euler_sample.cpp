// `camber sample` for an euler deck: steady flows over a Latin-hypercube
// design of (Mach, alpha), solved by groups of ranks at once, written as an
// nn data set (inputs mach, alpha_deg; outputs CL, CD, CM) for `camber
// train`. Every finished flow is recorded in <dir>/<case>_samples.csv
// (rewritten atomically after each round), and a run on the same deck
// continues with the flows that file does not hold yet.
#include "mesh_source.hpp"
#include "euler_common.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/init.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace {

struct Sample {
  double mach = 0.0, alpha = 0.0;
};

// n points of a Latin hypercube over the two ranges: each range cut in n
// strata, one point per stratum, strata paired by seeded permutations.
std::vector<Sample> latin_hypercube(int n, std::uint64_t seed, const std::vector<double>& mach,
                                    const std::vector<double>& alpha) {
  nn::Rng rng(seed);
  const auto column = [&](double lo, double hi) {
    std::vector<int> perm(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
    for (int i = n - 1; i > 0; --i)
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng.below(static_cast<std::uint64_t>(i + 1)))]);
    std::vector<double> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      v[static_cast<size_t>(i)] = lo + (hi - lo) * (perm[static_cast<size_t>(i)] + rng.uniform()) / n;
    return v;
  };
  const std::vector<double> m = column(mach[0], mach[1]), a = column(alpha[0], alpha[1]);
  std::vector<Sample> s(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) s[static_cast<size_t>(i)] = {m[static_cast<size_t>(i)], a[static_cast<size_t>(i)]};
  return s;
}

struct Result {
  double index = -1, cl = 0, cd = 0, cm = 0, converged = 0, iterations = 0;
};

std::string design_line(const deck::Deck& d) {
  std::ostringstream s;
  s.precision(17);
  const auto& m = d.reals("sample.mach");
  const auto& a = d.reals("sample.alpha_deg");
  s << "# design count=" << d.integer("sample.count") << " seed=" << d.integer("sample.seed")
    << " mach=" << m[0] << "," << m[1] << " alpha_deg=" << a[0] << "," << a[1];
  return s.str();
}

// The flows a previous run finished (rank 0 reads; the caller broadcasts).
std::map<int, Result> read_done(const std::string& path, const std::string& design) {
  std::map<int, Result> done;
  std::ifstream in(path);
  if (!in) return done;
  std::string line;
  std::getline(in, line);
  CAMBER_INPUT_REQUIRE(line == design, path << " holds another design (\"" << line
                                            << "\"); remove it or change the case name");
  std::getline(in, line);  // column names
  while (std::getline(in, line)) {
    std::istringstream row(line);
    Result r;
    char c = 0;
    double mach = 0, alpha = 0;
    row >> r.index >> c >> mach >> c >> alpha >> c >> r.cl >> c >> r.cd >> c >> r.cm >> c >>
        r.converged >> c >> r.iterations;
    CAMBER_INPUT_REQUIRE(!row.fail(), path << ": unreadable line '" << line << "'");
    done[static_cast<int>(r.index)] = r;
  }
  return done;
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

  const std::string name = d.string("case"), dir = d.string("output.dir");
  const std::string csv = dir + "/" + name + "_samples.csv";
  const std::string h5 = dir + "/" + name + "_samples.h5";
  const int n = static_cast<int>(d.integer("sample.count"));
  const std::vector<Sample> design =
      latin_hypercube(n, static_cast<std::uint64_t>(d.integer("sample.seed")),
                      d.reals("sample.mach"), d.reals("sample.alpha_deg"));
  const std::string header = design_line(d);

  std::map<int, Result> done;
  collective_guard(comm, [&] {
    if (rank == 0) {
      fs::create_directories(dir);
      done = read_done(csv, header);
    }
  });
  {
    std::vector<double> flat;
    for (const auto& [i, r] : done)
      for (double v : {r.index, r.cl, r.cd, r.cm, r.converged, r.iterations}) flat.push_back(v);
    int count = static_cast<int>(flat.size());
    CAMBER_CHECK_MPI(MPI_Bcast(&count, 1, MPI_INT, 0, comm));
    flat.resize(static_cast<size_t>(count));
    CAMBER_CHECK_MPI(MPI_Bcast(flat.data(), count, MPI_DOUBLE, 0, comm));
    done.clear();
    for (size_t k = 0; k < flat.size(); k += 6)
      done[static_cast<int>(flat[k])] = {flat[k], flat[k + 1], flat[k + 2], flat[k + 3], flat[k + 4], flat[k + 5]};
  }
  std::vector<int> pending;
  for (int i = 0; i < n; ++i)
    if (done.count(i) == 0) pending.push_back(i);
  logging::info(CAMBER_MSG("sample: " << n << " flows (Latin hypercube, seed "
                                      << d.integer("sample.seed") << "), " << done.size()
                                      << " done before, " << pending.size() << " to solve by "
                                      << n_groups << (n_groups == 1 ? " group" : " groups")
                                      << " of " << rps << (rps == 1 ? " rank" : " ranks")));

  solvers::petsc::PetscSession petsc(options.petsc_options);
  FlowSetup setup = flow_setup(d, gcomm);

  const auto write_csv = [&]() {
    std::ostringstream s;
    s << header << "\nindex,mach,alpha_deg,CL,CD,CM,converged,iterations\n";
    s.precision(17);
    for (const auto& [i, r] : done)
      s << i << ',' << design[static_cast<size_t>(i)].mach << ',' << design[static_cast<size_t>(i)].alpha
        << ',' << r.cl << ',' << r.cd << ',' << r.cm << ',' << r.converged << ','
        << r.iterations << '\n';
    write_file_atomically(csv, s.str());
  };

  for (size_t round = 0; round * n_groups < pending.size(); ++round) {
    Result mine;
    const size_t slot = round * static_cast<size_t>(n_groups) + static_cast<size_t>(group);
    if (slot < pending.size()) {
      const int i = pending[slot];
      const eu::SteadyResult r = solve_flow_at(d, setup, design[static_cast<size_t>(i)].mach,
                                               design[static_cast<size_t>(i)].alpha);
      mine = {static_cast<double>(i), r.forces.cl, r.forces.cd, r.forces.cm,
              r.converged ? 1.0 : 0.0, static_cast<double>(r.iterations)};
    }
    // Every rank learns every group leader's result.
    std::vector<double> all(static_cast<size_t>(6 * size));
    const Result sent = leader ? mine : Result{};
    const double buf[6] = {sent.index, sent.cl, sent.cd, sent.cm, sent.converged, sent.iterations};
    CAMBER_CHECK_MPI(MPI_Allgather(buf, 6, MPI_DOUBLE, all.data(), 6, MPI_DOUBLE, comm));
    for (int k = 0; k < size; ++k) {
      const double* r = all.data() + 6 * k;
      if (r[0] < 0) continue;
      const int i = static_cast<int>(r[0]);
      done[i] = {r[0], r[1], r[2], r[3], r[4], r[5]};
      logging::info(CAMBER_MSG("flow " << done.size() << "/" << n << ": #" << i << " M "
                                       << std::fixed << std::setprecision(4)
                                       << design[static_cast<size_t>(i)].mach << ", alpha "
                                       << design[static_cast<size_t>(i)].alpha << " deg -> CL "
                                       << std::setprecision(5) << r[1] << " CD " << r[2] << " CM "
                                       << r[3] << (r[4] > 0 ? "" : " (not converged)") << ", "
                                       << static_cast<int>(r[5]) << " steps"));
    }
    if (rank == 0) write_csv();
  }
  MPI_Comm_free(&gcomm);

  // The data set: converged flows only, rows held by rank 0.
  std::vector<double> x, y;
  int failed = 0;
  if (rank == 0)
    for (const auto& [i, r] : done) {
      if (r.converged == 0) {
        ++failed;
        continue;
      }
      x.push_back(design[static_cast<size_t>(i)].mach);
      x.push_back(design[static_cast<size_t>(i)].alpha);
      for (double v : {r.cl, r.cd, r.cm}) y.push_back(v);
    }
  const index_t rows = static_cast<index_t>(y.size() / 3);
  CAMBER_CHECK_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, comm));
  nn::io::write_dataset(h5, Tensor::from_host({rows, 2}, x), Tensor::from_host({rows, 3}, y),
                    {{"mach", "alpha_deg"}, {"", "deg"}}, {{"CL", "CD", "CM"}, {"", "", ""}}, comm,
                    deck_text(d));
  const std::string left_out =
      failed > 0 ? ", " + std::to_string(failed) + " not converged and left out" : std::string();
  logging::info(CAMBER_MSG("wrote " << h5 << " (" << n - failed << " flows" << left_out << ") and "
                                    << csv));
  return 0;
}

}  // namespace camber::app
