// Physics-informed network for viscous Burgers' equation, the forward
// problem and the inverse problem of its viscosity (issue benchmarks; the
// results are in docs/performance.md, "Physics-informed networks").
//
//   u_t + u u_x = nu u_xx,  x in [-1, 1], t in [0, 1],
//   u(x, 0) = -sin(pi x),  u(-1, t) = u(1, t) = 0,  nu = 0.01 / pi.
//
// Reference: the Cole-Hopf solution
//   u = -int sin(pi (x - e)) F(x - e) G(e) de / int F(x - e) G(e) de,
//   F(y) = exp(-cos(pi y) / (2 pi nu)),  G(e) = exp(-e^2 / (4 nu t)),
// computed here by the trapezoidal rule over e in [-L, L], L = sqrt(600 nu
// t) (where G has fallen by e^-150, more than F can gain), with 8001 nodes
// and the exponents shifted by their maximum: the integrands are smooth and
// decay like a Gaussian, so the rule converges faster than any power (8001
// and 16001 nodes agree to 1.4e-13 on the error grid). Checked at start-up
// against the published steepest slope, du/dx(0, 1.6037/pi) = -152.00516
// (Basdevant et al., Computers & Fluids 14, 1986).
//
// The network: (x, t) -> u, tanh, `--width` x `--layers`; the loss is the
// mean squared residual at `--points` collocation points (seeded uniform)
// plus the mean squared initial and boundary errors at 100 + 2 x 50 points.
// The residual's u_x, u_t and u_xx come from forward mode nested in forward
// mode on the collocation points stacked twice (directions e_x, e_t), and
// the loss is differentiated with respect to the weights in reverse mode.
// Training: Adam (`--adam` steps, cosine schedule from 1e-3), then L-BFGS
// (`--lbfgs` iterations).
//
// Inverse (`--inverse`): nu unknown (a parameter log_nu, started at
// log(0.05)), `--observations` points of the reference solution with 1%
// Gaussian noise replace the initial and boundary terms; reported: the
// recovered nu and its relative error.
//
//   pinn_burgers [--adam N] [--lbfgs N] [--points N] [--width N] [--layers N]
//                [--inverse] [--observations N] [--seed N]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <camber/autodiff/fusion.hpp>
#include <camber/nn/layers.hpp>
#include <camber/nn/lbfgs.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/schedule.hpp>
#include <camber/core/runtime.hpp>

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::index_t;
using camber::Tensor;

namespace {

constexpr double nu_true = 0.01 / M_PI;

double cole_hopf(double x, double t, double nu) {
  if (t <= 0.0) return -std::sin(M_PI * x);
  const int m = 8001;
  const double a = -std::sqrt(600.0 * nu * t), h = -2.0 * a / (m - 1);
  std::vector<double> ex(static_cast<size_t>(m));
  double emax = -1e300;
  for (int k = 0; k < m; ++k) {
    const double e = a + k * h;
    ex[static_cast<size_t>(k)] = -std::cos(M_PI * (x - e)) / (2.0 * M_PI * nu) - e * e / (4.0 * nu * t);
    emax = std::max(emax, ex[static_cast<size_t>(k)]);
  }
  double num = 0.0, den = 0.0;
  for (int k = 0; k < m; ++k) {
    const double e = a + k * h;
    const double w = (k == 0 || k == m - 1 ? 0.5 : 1.0) * std::exp(ex[static_cast<size_t>(k)] - emax);
    num += std::sin(M_PI * (x - e)) * w;
    den += w;
  }
  return -num / den;
}

struct Options {
  int adam = 4000, lbfgs = 2000, points = 2000, width = 20, layers = 6, observations = 200;
  bool inverse = false;
  unsigned seed = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "pinn_burgers: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::atoi(argv[++i]);
    };
    if (a == "--adam") o.adam = next();
    else if (a == "--lbfgs") o.lbfgs = next();
    else if (a == "--points") o.points = next();
    else if (a == "--width") o.width = next();
    else if (a == "--layers") o.layers = next();
    else if (a == "--observations") o.observations = next();
    else if (a == "--seed") o.seed = static_cast<unsigned>(next());
    else if (a == "--inverse") o.inverse = true;
    else {
      std::fprintf(stderr, "pinn_burgers: unknown argument %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

Tensor rows(const std::vector<double>& v) { return Tensor::from_host({static_cast<index_t>(v.size() / 2), 2}, v); }

}  // namespace

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  const Options o = parse(argc, argv);
  {
    const double t = 1.6037 / M_PI, h = 1e-7;
    const double slope = (cole_hopf(h, t, nu_true) - cole_hopf(-h, t, nu_true)) / (2 * h);
    if (std::abs(slope + 152.00516) > 1e-4) {
      std::fprintf(stderr, "pinn_burgers: reference check failed: du/dx(0, 1.6037/pi) = %.6f, "
                           "published -152.00516\n", slope);
      return 1;
    }
  }
  // Small tensors and nested forward mode: unfused is faster here (see
  // docs/architecture.md, "Neural networks").
  ad::FusionGuard unfused(false);
  nn::Rng rng(o.seed);

  // Collocation points (x, t), stacked twice for the nested directions.
  std::vector<double> col;
  for (int i = 0; i < o.points; ++i) {
    col.push_back(rng.uniform(-1.0, 1.0));
    col.push_back(rng.uniform(0.0, 1.0));
  }
  const index_t n = o.points;
  std::vector<double> twice = col, dir1(static_cast<size_t>(4 * n), 0.0), dir2(static_cast<size_t>(4 * n), 0.0);
  twice.insert(twice.end(), col.begin(), col.end());
  for (index_t i = 0; i < n; ++i) {
    dir1[static_cast<size_t>(2 * i)] = 1.0;            // e_x on the first copy
    dir1[static_cast<size_t>(2 * (n + i) + 1)] = 1.0;  // e_t on the second
    dir2[static_cast<size_t>(2 * i)] = 1.0;            // e_x again: u_xx on the first copy
  }
  const ad::Var X2 = ad::constant(rows(twice));
  const ad::Var D1 = ad::constant(rows(dir1)), D2 = ad::constant(rows(dir2));

  // Data terms: initial and boundary values (forward), or noisy
  // observations of the reference (inverse).
  std::vector<double> data_x, data_u;
  if (!o.inverse) {
    for (int i = 0; i < 100; ++i) {
      const double x = -1.0 + 2.0 * (i + 0.5) / 100;
      data_x.insert(data_x.end(), {x, 0.0});
      data_u.push_back(-std::sin(M_PI * x));
    }
    for (int i = 0; i < 50; ++i) {
      const double t = (i + 0.5) / 50;
      data_x.insert(data_x.end(), {-1.0, t, 1.0, t});
      data_u.insert(data_u.end(), {0.0, 0.0});
    }
  } else {
    for (int i = 0; i < o.observations; ++i) {
      const double x = rng.uniform(-1.0, 1.0), t = rng.uniform(0.0, 1.0);
      data_x.insert(data_x.end(), {x, t});
      data_u.push_back(cole_hopf(x, t, nu_true) * (1.0 + 0.01 * rng.normal()));
    }
  }
  const ad::Var DX = ad::constant(rows(data_x));
  const ad::Var DU = ad::constant(Tensor::from_host({static_cast<index_t>(data_u.size()), 1}, data_u));

  nn::MlpOptions mo;
  mo.in = 2;
  mo.out = 1;
  mo.hidden.assign(static_cast<size_t>(o.layers), o.width);
  mo.activation = nn::Activation::tanh;
  const auto net = nn::mlp(mo, rng);
  const ad::Var log_nu = ad::variable(Tensor::from_host({1}, {std::log(o.inverse ? 0.05 : nu_true)}));
  ad::Vars params = net->parameters();
  if (o.inverse) params.push_back(log_nu);

  const auto loss = [&]() {
    const auto u = [&](const ad::Var& z) { return net->forward(z); };
    const auto du = [&](const ad::Var& z) { return ad::jvp(u, z, D1).tangents[0]; };
    const ad::JvpResult second = ad::jvp(du, X2, D2);
    const ad::Var first = second.outputs[0];  // [u_x; u_t]
    const ad::Var uxx = ad::slice(second.tangents[0], 0, 0, n);
    const ad::Var ux = ad::slice(first, 0, 0, n), ut = ad::slice(first, 0, n, 2 * n);
    const ad::Var uu = net->forward(ad::constant(rows(col)));
    const ad::Var nu = ad::exp(log_nu);
    const ad::Var r = ut + uu * ux - nu * uxx;
    const ad::Var e = net->forward(DX) - DU;
    return ad::mean(r * r) + ad::mean(e * e);
  };

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  nn::Adam adam(params, {1e-3});
  const auto lr = nn::cosine_lr(1e-3, std::max(o.adam, 1), 1e-5);
  double l = 0.0;
  for (int s = 0; s < o.adam; ++s) {
    adam.set_lr(lr(s));
    const ad::Var L = loss();
    adam.step(ad::grad(L, params));
    l = L.item();
    if (s % 500 == 0) std::printf("adam %5d  loss %.4e  nu %.5e\n", s, l, std::exp(log_nu.item()));
    std::fflush(stdout);
  }
  const double t_adam = std::chrono::duration<double>(clock::now() - t0).count();
  nn::LbfgsOptions lo;
  lo.max_iterations = o.lbfgs;
  lo.gradient_tolerance = 1e-12;
  lo.change_tolerance = 0.0;
  const nn::LbfgsResult lr_result = o.lbfgs > 0 ? nn::lbfgs(params, loss, lo) : nn::LbfgsResult{};
  const double t_total = std::chrono::duration<double>(clock::now() - t0).count();

  // Error on a 256 x 101 grid against Cole-Hopf.
  std::vector<double> grid, ref;
  for (int j = 0; j <= 100; ++j)
    for (int i = 0; i < 256; ++i) {
      const double x = -1.0 + 2.0 * i / 255.0, t = j / 100.0;
      grid.insert(grid.end(), {x, t});
      ref.push_back(cole_hopf(x, t, nu_true));
    }
  const std::vector<double> pred = net->forward(ad::constant(rows(grid))).value().to_vector();
  double num = 0.0, den = 0.0;
  for (size_t k = 0; k < ref.size(); ++k) {
    num += (pred[k] - ref[k]) * (pred[k] - ref[k]);
    den += ref[k] * ref[k];
  }
  std::printf("pinn_burgers: %s, %d x %d tanh (%ld parameters), %d collocation points, "
              "%d Adam steps (%.0f s) + %d L-BFGS iterations (%d evaluations, %s), %.0f s in all\n",
              o.inverse ? "inverse" : "forward", o.layers, o.width,
              static_cast<long>(net->num_parameters()), o.points, o.adam, t_adam,
              lr_result.iterations, lr_result.evaluations, lr_result.stop_reason.c_str(), t_total);
  std::printf("pinn_burgers: final loss %.4e, relative L2 error against Cole-Hopf %.4e\n",
              o.lbfgs > 0 ? lr_result.loss : l, std::sqrt(num / den));
  if (o.inverse) {
    const double nu = std::exp(log_nu.item());
    std::printf("pinn_burgers: recovered nu %.6e (true %.6e), relative error %.3e, from %d "
                "observations with 1%% noise\n",
                nu, nu_true, std::abs(nu - nu_true) / nu_true, o.observations);
  }
  return 0;
}
