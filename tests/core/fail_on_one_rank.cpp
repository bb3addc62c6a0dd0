// Rank 1 throws while every other rank waits in a barrier. The job must end
// on all ranks, quickly, with a non-zero exit status and one error message.
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    if (runtime.rank() == 1) CAMBER_REQUIRE(false, "simulated failure on one rank");
    CAMBER_CHECK_MPI(MPI_Barrier(runtime.comm()));
    return 0;
  });
}
