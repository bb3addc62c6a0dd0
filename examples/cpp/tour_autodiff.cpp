// C++ API tour 1: the tensor graph and Dual numbers (component: autodiff).
//
// Shows: ad::value_and_grad and a Hessian-vector product ad::hvp of the
// Rosenbrock function with the tensor graph; the engine's caching allocator
// that Tensor storage comes from; a Dual-number kernel inside a Kokkos
// parallel_for that gives each cell's local Jacobian. Every number is
// checked against its closed form; the program exits 1 if one is off.
//
//   cmake -S examples/cpp -B build-tour -DCMAKE_PREFIX_PATH=<camber prefix>
//   cmake --build build-tour && build-tour/tour_autodiff
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include <camber/core/allocator.hpp>
#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/graph.hpp>
#include <camber/autodiff/jacobian.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace ad = camber::ad;
using camber::Tensor;

// f(x) = sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, written with ad:: ops.
ad::Var rosenbrock(const ad::Var& x) {
  const camber::index_t n = x.shape()[0];
  const ad::Var head = ad::slice(x, 0, 0, n - 1), tail = ad::slice(x, 0, 1, n);
  return ad::sum(100.0 * ad::square(tail - ad::square(head)) + ad::square(1.0 - head));
}

// The flux of Burgers' equation for two conserved quantities, as a template
// on the scalar so that Duals give its Jacobian: f = (u v, u^2 / 2 + v).
struct Flux {
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&u)[2], T (&f)[2]) const {
    f[0] = u[0] * u[1];
    f[1] = 0.5 * u[0] * u[0] + u[1];
  }
};

// Each cell's flux Jacobian dF/du at its state (u, v) = (c, 2c), from Dual
// numbers inside a kernel. (Kernels live in named functions: CUDA does not
// allow device lambdas inside other lambdas.)
Kokkos::View<double* [2][2]> flux_jacobians(int n_cells) {
  Kokkos::View<double* [2][2]> jac("jacobians", n_cells);
  Kokkos::parallel_for(
      "flux_jacobians", Kokkos::RangePolicy<>(0, n_cells), KOKKOS_LAMBDA(const int c) {
        const double u[2] = {1.0 * c, 2.0 * c};
        double flux[2], J[2][2];
        ad::jacobian(Flux{}, u, flux, J);
        for (int r = 0; r < 2; ++r)
          for (int k = 0; k < 2; ++k) jac(c, r, k) = J[r][k];
      });
  return jac;
}

int check(bool ok, const char* what, double error) {
  std::printf("%-44s max error %.2e  %s\n", what, error, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);  // MPI, then Kokkos
  return camber::run_guarded(runtime.comm(), [&] {
    int failures = 0;

    // -- the tensor graph: value, gradient and H v of Rosenbrock ----------
    const std::vector<double> x0 = {-1.2, 1.0, 0.5, 2.0};
    const std::vector<double> v0 = {1.0, -1.0, 0.5, 0.25};
    const ad::Var x = ad::variable(Tensor::from_host({4}, x0));
    const auto [f, grads] = ad::value_and_grad(rosenbrock, x);
    const Tensor Hv = ad::hvp(rosenbrock, x.value(), Tensor::from_host({4}, v0));

    // Closed forms: g_i = -400 x_i (x_{i+1} - x_i^2) - 2 (1 - x_i) + 200 (x_i - x_{i-1}^2);
    // H is tridiagonal with H_ii = 1200 x_i^2 - 400 x_{i+1} + 2 (+200 if i > 0),
    // H_{i,i+1} = H_{i+1,i} = -400 x_i.
    const int n = 4;
    double f_exact = 0.0;
    std::vector<double> g_exact(n, 0.0), Hv_exact(n, 0.0);
    for (int i = 0; i + 1 < n; ++i) {
      const double a = x0[i + 1] - x0[i] * x0[i], b = 1.0 - x0[i];
      f_exact += 100.0 * a * a + b * b;
      g_exact[i] += -400.0 * x0[i] * a - 2.0 * b;
      g_exact[i + 1] += 200.0 * a;
      const double d = 1200.0 * x0[i] * x0[i] - 400.0 * x0[i + 1] + 2.0, o = -400.0 * x0[i];
      Hv_exact[i] += d * v0[i] + o * v0[i + 1];
      Hv_exact[i + 1] += o * v0[i] + 200.0 * v0[i + 1];
    }
    const std::vector<double> g = grads[0].value().to_vector(), hv = Hv.to_vector();
    double eg = 0.0, eh = 0.0;
    for (int i = 0; i < n; ++i) {
      eg = std::max(eg, std::abs(g[i] - g_exact[i]) / (1.0 + std::abs(g_exact[i])));
      eh = std::max(eh, std::abs(hv[i] - Hv_exact[i]) / (1.0 + std::abs(Hv_exact[i])));
    }
    const double ef = std::abs(f.value().item() - f_exact) / f_exact;
    failures += check(ef < 1e-14, "Rosenbrock value (relative)", ef);
    failures += check(eg < 1e-13, "gradient (value_and_grad)", eg);
    failures += check(eh < 1e-13, "Hessian-vector product (hvp)", eh);

    // -- memory: Tensors take their storage from the engine allocator -----
    // A freed block serves the next request of its size bucket
    // (CAMBER_ALLOCATOR=0 turns the cache off).
    auto& pool = camber::memory::engine_allocator();
    std::shared_ptr<void> a = pool.allocate(1000);  // a block of 1024 bytes
    void* p = a.get();
    a.reset();                                      // back to the cache
    auto b = pool.allocate(1000);                   // b.get() == p: a hit
    pool.empty_cache();                             // free blocks to Kokkos
    const bool reused = b.get() == p || !pool.enabled();
    failures += check(reused, "freed block reused (engine allocator)", reused ? 0.0 : 1.0);

    // -- Dual numbers in a kernel: the flux Jacobian of every cell --------
    // dF/du = [[v, u], [u, 1]] at each cell's state (u, v) = (c, 2c).
    const int n_cells = 1000;
    const auto h =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flux_jacobians(n_cells));
    double ej = 0.0;
    for (int c = 0; c < n_cells; ++c) {
      const double expected[2][2] = {{2.0 * c, 1.0 * c}, {1.0 * c, 1.0}};
      for (int r = 0; r < 2; ++r)
        for (int k = 0; k < 2; ++k) ej = std::max(ej, std::abs(h(c, r, k) - expected[r][k]));
    }
    failures += check(ej == 0.0, "flux Jacobians from Duals (1000 cells)", ej);
    return failures == 0 ? 0 : 1;
  });
}
