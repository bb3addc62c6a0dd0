// Uses the installed Camber: runtime, Tensor kernels, collective errors, and
// (when installed with PETSc) a parallel heat solve. Exits 0 only if every
// value is what the math says.
#include <camber.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    // sum_{i<n} i = n (n - 1) / 2
    const camber::Tensor t = camber::Tensor::arange(100);
    CAMBER_REQUIRE(t.sum() == 4950.0, "Tensor::sum gave " << t.sum());
    const camber::Tensor b = camber::add(t.reshape({10, 10}), camber::Tensor::full({10}, 1.0));
    CAMBER_REQUIRE(b.sum() == 5050.0, "broadcast add gave " << b.sum());
    if (runtime.rank() == 0)
      std::printf("consumer: Camber %s works (%s)\n", CAMBER_VERSION_STRING,
                  runtime.describe().c_str());
    return 0;
  });
}
