// Rank 1's evaluation callback throws while rank 0 waits in the callback's
// own communication (an allreduce of the "solver"), so rank 0 never reaches
// the optimizer's agreement. The optimizer on rank 1 must end the job after
// Options::error_timeout_seconds (1 s here), printing the error once;
// tests/core/check_one_rank_fails.sh checks that nothing hangs.
#include <stdexcept>

#include <camber/optimization/optimizer.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    namespace opt = camber::opt;
    opt::Problem p;
    p.x0 = {0.0};
    p.evaluate = [&](const std::vector<double>& x) {
      if (runtime.rank() == 1) throw std::runtime_error("simulated failure on one rank");
      const double f = camber::par::allreduce_sum(x[0] * x[0], runtime.comm());
      return opt::Evaluation{f, {2 * x[0]}, {}, {}, {}, {}};
    };
    opt::Options o;
    o.error_timeout_seconds = 1.0;
    opt::Optimizer optimizer(p, o, runtime.comm());
    optimizer.minimize();
    return 0;
  });
}
