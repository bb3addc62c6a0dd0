// The ONERA M6 case of the wing benchmarks (check_wing_gradient,
// optimize_wing): the flow of examples/onera_m6/onera_m6.yaml, the markers
// mesh.sh writes, and the programs' command line (a mesh path and
// --key value options).
#pragma once

#include <mpi.h>

#include <cstdio>
#include <exception>
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/euler/discretization.hpp>

namespace camber::bench {

// M 0.8395, alpha 3.06 deg; the half wing's planform area (mm^2) and mean
// aerodynamic chord (mm); moments about the root's leading edge.
inline solvers::euler::FlowConditions onera_m6_flow() {
  solvers::euler::FlowConditions f;
  f.mach = 0.8395;
  f.alpha_deg = 3.06;
  f.reference_area = 752960.0;
  f.reference_length = 646.07;
  f.moment_point = {0.0, 0.0, 0.0};
  return f;
}

inline std::vector<solvers::euler::BoundaryCondition> onera_m6_conditions() {
  namespace eu = solvers::euler;
  return {{"wing", eu::BoundaryKind::slip_wall},
          {"symmetry", eu::BoundaryKind::symmetry},
          {"farfield", eu::BoundaryKind::far_field}};
}

// The mesh path (the one argument not starting with --, default the
// coarse grid mesh.sh writes) and the --key value options, each one of
// `keys` (a bad_input error naming the program otherwise).
struct Arguments {
  std::string mesh = "out/onera_m6/onera_m6_coarse.su2";
  std::map<std::string, std::string> options;
  std::string program;
  std::string get(const std::string& key, const std::string& fallback) const {
    const auto it = options.find(key);
    return it == options.end() ? fallback : it->second;
  }
  // The option as a number, an integer, or a comma-separated list of
  // integers (a bad_input error naming it when it is not one).
  double real(const std::string& key, double fallback) const {
    const std::string v = get(key, "");
    return v.empty() ? fallback : number(key, v);
  }
  int integer(const std::string& key, int fallback) const {
    const std::string v = get(key, "");
    return v.empty() ? fallback : whole(key, v);
  }
  std::vector<int> integers(const std::string& key, const std::string& fallback) const {
    const std::string list = get(key, fallback);
    std::vector<int> out;
    for (size_t a = 0; a < list.size();) {
      const size_t b = std::min(list.find(',', a), list.size());
      out.push_back(whole(key, list.substr(a, b - a)));
      a = b + 1;
    }
    return out;
  }

 private:
  double number(const std::string& key, const std::string& v) const {
    size_t used = 0;
    double x = 0.0;
    try {
      x = std::stod(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    CAMBER_INPUT_REQUIRE(used == v.size() && used > 0,
                         program << ": " << key << " expects a number, got '" << v << "'");
    return x;
  }
  int whole(const std::string& key, const std::string& v) const {
    const double x = number(key, v);
    CAMBER_INPUT_REQUIRE(x == static_cast<double>(static_cast<int>(x)),
                         program << ": " << key << " expects integers, got '" << v << "'");
    return static_cast<int>(x);
  }
};

inline Arguments parse_arguments(int argc, char** argv, const std::string& program,
                                 const std::set<std::string>& keys) {
  Arguments a;
  a.program = program;
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    if (key.rfind("--", 0) != 0) {
      a.mesh = key;
      continue;
    }
    std::string known;
    for (const std::string& k : keys) known += (known.empty() ? "" : ", ") + k;
    CAMBER_INPUT_REQUIRE(keys.count(key) == 1,
                         program << ": unknown option " << key << " (" << known << ")");
    CAMBER_INPUT_REQUIRE(i + 1 < argc, program << ": " << key << " needs a value");
    a.options[key] = argv[++i];
  }
  return a;
}

// printf on rank 0 of comm, flushed at once.
class RootPrinter {
 public:
  explicit RootPrinter(MPI_Comm comm) { MPI_Comm_rank(comm, &rank_); }
  template <class... Args>
  void operator()(const char* fmt, Args... args) const {
    if (rank_ != 0) return;
    std::printf(fmt, args...);
    std::fflush(stdout);
  }

 private:
  int rank_ = 0;
};

}  // namespace camber::bench
