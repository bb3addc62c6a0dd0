#include <camber/solvers/euler/steady_flow.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include <camber/autodiff/functional.hpp>
#include <camber/core/error.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>

namespace camber::solvers::euler {

struct SteadyFlow::Linearization {
  std::unique_ptr<mesh::DistributedMesh> dm;  // outlives disc (declared first)
  std::unique_ptr<Discretization> disc;
  Tensor U;
  Forces forces;
  // Built on first use (a forward-only evaluation needs neither).
  std::unique_ptr<Adjoint> adjoint;
  std::unique_ptr<ShapeDerivative> shape;
  std::vector<SteadyFlow::Sensitivity> sensitivities;

  void prepare_derivatives(const AdjointOptions& options, const SteadyFlow::Patterns& patterns) {
    if (!adjoint) adjoint = std::make_unique<Adjoint>(*disc, options, patterns.jacobian);
    if (!shape) shape = std::make_unique<ShapeDerivative>(*disc, patterns.shape);
  }
};

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

Tensor coefficient_vector(const Forces& f) { return Tensor::from_host({3}, {f.cl, f.cd, f.cm}); }

}  // namespace

SteadyFlow::SteadyFlow(const mesh::Mesh& global, MPI_Comm comm, SteadyFlowSettings settings)
    : global_(global), comm_(comm), settings_(std::move(settings)) {
  CAMBER_REQUIRE(global_.dim() == 2,
                 "SteadyFlow: a global mesh must be 2-D (give a 3-D mesh distributed)");
  if (settings_.spatial.order == 2 && settings_.spatial.limiter == LimiterKind::venkatakrishnan &&
      settings_.steady.freeze_limiter_drop <= 0.0)
    settings_.steady.freeze_limiter_drop = 1e-3;
  settings_.adjoint.linear_solver = settings_.steady.linear_solver;
}

SteadyFlow::SteadyFlow(mesh::DistributedMesh undeformed, SteadyFlowSettings settings)
    : comm_(undeformed.comm()),
      dim_(undeformed.local().dim()),
      distributed_(std::make_unique<mesh::DistributedMesh>(std::move(undeformed))),
      settings_(std::move(settings)) {
  if (settings_.spatial.order == 2 && settings_.spatial.limiter == LimiterKind::venkatakrishnan &&
      settings_.steady.freeze_limiter_drop <= 0.0)
    settings_.steady.freeze_limiter_drop = 1e-3;
  settings_.adjoint.linear_solver = settings_.steady.linear_solver;
}

void SteadyFlow::require_global(const char* what) const {
  CAMBER_REQUIRE(global_.n_nodes() > 0, "SteadyFlow::" << what
                                            << " needs the global mesh; this flow was built from "
                                               "a distributed one (use the rank-row calls)");
}

SteadyFlow::~SteadyFlow() = default;

const mesh::DistributedMesh& SteadyFlow::distributed_mesh() {
  if (!distributed_) distributed_ = std::make_unique<mesh::DistributedMesh>(global_, comm_);
  return *distributed_;
}

const SteadyFlow::Patterns& SteadyFlow::patterns() {
  if (!patterns_.shape) {
    SpatialOptions spatial = settings_.spatial;
    spatial.freeze_limiter = false;
    distributed_mesh();
    const Discretization undeformed(*distributed_, settings_.flow, settings_.conditions,
                                    settings_.scheme, spatial);
    patterns_.shape = ShapeDerivative::pattern(undeformed, settings_.shape_method);
    patterns_.jacobian = ExactJacobian::pattern(undeformed);
    row_coordinates_ = ShapeDerivative(undeformed, patterns_.shape).row_coordinates();
  }
  return patterns_;
}

const std::vector<std::int64_t>& SteadyFlow::node_rows() { return patterns().shape->rows; }

const Tensor& SteadyFlow::row_coordinates() {
  patterns();
  return row_coordinates_;
}

Tensor SteadyFlow::rows_of(const Tensor& X) {
  require_global("rows_of");
  CAMBER_REQUIRE(X.shape() == (Shape{global_.n_nodes(), 2}),
                 "SteadyFlow: X has shape " << shape_string(X.shape()) << ", expected {"
                                            << global_.n_nodes() << ", 2}");
  const std::vector<std::int64_t>& rows = node_rows();
  const auto x = X.host();
  std::vector<double> out(rows.size() * 2);
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t d = 0; d < 2; ++d) out[2 * r + d] = x(rows[r] * 2 + static_cast<index_t>(d));
  return Tensor::from_host({static_cast<index_t>(rows.size()), 2}, out);
}

Tensor SteadyFlow::global_of(const Tensor& share) {
  require_global("global_of");
  const std::vector<std::int64_t>& rows = node_rows();
  CAMBER_REQUIRE(share.shape() == (Shape{static_cast<index_t>(rows.size()), 2}),
                 "SteadyFlow: a node share has shape " << shape_string(share.shape())
                                                       << ", expected {" << rows.size() << ", 2}");
  const auto h = share.host();
  std::vector<double> out(static_cast<size_t>(global_.n_nodes()) * 2, 0.0), sum(out.size());
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t d = 0; d < 2; ++d)
      out[static_cast<size_t>(rows[r]) * 2 + d] += h(static_cast<index_t>(2 * r + d));
  CAMBER_CHECK_MPI(MPI_Allreduce(out.data(), sum.data(), static_cast<int>(out.size()), MPI_DOUBLE,
                                 MPI_SUM, comm_));
  return Tensor::from_host({global_.n_nodes(), 2}, sum);
}

std::shared_ptr<SteadyFlow::Linearization> SteadyFlow::solve(const Tensor& Xr, double alpha_deg,
                                                             double mach) {
  const index_t n_rows = static_cast<index_t>(node_rows().size());
  CAMBER_REQUIRE(Xr.shape() == (Shape{n_rows, dim_}),
                 "SteadyFlow: the node rows have shape " << shape_string(Xr.shape())
                                                         << ", expected {" << n_rows << ", "
                                                         << dim_ << "}");
  const auto start = std::chrono::steady_clock::now();
  auto lin = std::make_shared<Linearization>();
  const index_t n_local = distributed_mesh().n_local_nodes();
  const auto xr = Xr.host();
  std::vector<double> local(static_cast<size_t>(n_local * dim_));
  for (size_t i = 0; i < local.size(); ++i) local[i] = xr(static_cast<index_t>(i));
  lin->dm = std::make_unique<mesh::DistributedMesh>(
      distributed_mesh().with_local_coordinates(Tensor::from_host({n_local, dim_}, local)));
  SpatialOptions spatial = settings_.spatial;
  spatial.freeze_limiter = false;
  FlowConditions flow = settings_.flow;
  flow.alpha_deg = alpha_deg;
  if (mach > 0.0) flow.mach = mach;
  lin->disc = std::make_unique<Discretization>(*lin->dm, flow, settings_.conditions,
                                               settings_.scheme, spatial);
  const bool warm = !warm_start_.empty();
  SteadyResult r;
  int newton = 0, linear = 0;
  report_.cold_restart = false;
  // Converged means the residual fell rel_tolerance below the cold start's
  // (the first solve's) initial residual, not below a warm start's, which
  // may already be converged.
  SteadyOptions cold = settings_.steady;
  cold.jacobian_pattern = patterns().jacobian;
  if (reference_residual_ > 0.0 && cold.reference_residual <= 0.0)
    cold.reference_residual = reference_residual_;
  if (warm) {
    SteadyOptions options = cold;
    lin->U = warm_start_.clone();
    // From a converged neighbouring design the first-order start would
    // move the state away.
    options.first_order_drop = 0.0;
    if (settings_.warm_cfl_start > 0.0)
      options.cfl_start = std::max(options.cfl_start, settings_.warm_cfl_start);
    const bool retry = settings_.warm_max_iterations > 0;
    if (retry) options.max_iterations = std::min(options.max_iterations, settings_.warm_max_iterations);
    try {
      r = solve_steady(*lin->disc, lin->U, options, settings_.monitor);
    } catch (const Error&) {
      // No admissible step (every rank alike): retry cold, or report.
      if (!retry) throw;
      r = SteadyResult{};
    }
    newton += r.iterations;
    linear += r.linear_iterations;
    report_.cold_restart = retry && !r.converged;
  }
  if (!warm || report_.cold_restart) {
    lin->U = lin->disc->free_stream_field();
    r = solve_steady(*lin->disc, lin->U, cold, settings_.monitor);
    newton += r.iterations;
    linear += r.linear_iterations;
  }
  report_.converged = r.converged;
  report_.newton_iterations = newton;
  report_.linear_iterations = linear;
  report_.residual_drop =
      r.history.empty() || r.reference_residual <= 0.0
          ? 0.0
          : r.history.back().residual_density / r.reference_residual;
  report_.solve_seconds = seconds_since(start);
  report_.forces = r.forces;
  // Every rank holds the same verdict (the residual norms are global), so
  // every rank throws alike; the caller decides whether this is fatal.
  CAMBER_REQUIRE(r.converged, "the flow solve did not converge: the density residual is "
                                  << report_.residual_drop << " of the reference after "
                                  << r.iterations << " Newton steps");
  if (reference_residual_ <= 0.0) reference_residual_ = r.reference_residual;
  if (!r.limiter.empty()) lin->disc->set_limiter(r.limiter);
  lin->forces = r.forces;
  warm_start_ = lin->U.clone();
  last_ = lin;
  return lin;
}

Tensor SteadyFlow::coefficients(const Tensor& X) {
  return coefficients(X, settings_.flow.alpha_deg);
}

Tensor SteadyFlow::coefficients(const Tensor& X, double alpha_deg) {
  return coefficient_vector(solve(rows_of(X), alpha_deg)->forces);
}

Tensor SteadyFlow::rank_coefficients(const Tensor& Xr, double alpha_deg) {
  return coefficient_vector(solve(Xr, alpha_deg)->forces);
}

ad::Var SteadyFlow::coefficients(const ad::Var& X) { return differentiable({X}, false); }

ad::Var SteadyFlow::coefficients(const ad::Var& X, const ad::Var& alpha_deg) {
  CAMBER_REQUIRE(alpha_deg.size() == 1 || alpha_deg.size() == 2,
                 "SteadyFlow::coefficients: alpha_deg has shape "
                     << shape_string(alpha_deg.shape()) << ", expected (alpha) or (alpha, mach)");
  return differentiable({X, alpha_deg}, false);
}

ad::Var SteadyFlow::rank_coefficients(const ad::Var& Xr) { return differentiable({Xr}, true); }

ad::Var SteadyFlow::rank_coefficients(const ad::Var& Xr, const ad::Var& alpha_deg) {
  CAMBER_REQUIRE(alpha_deg.size() == 1 || alpha_deg.size() == 2,
                 "SteadyFlow::rank_coefficients: alpha_deg has shape "
                     << shape_string(alpha_deg.shape()) << ", expected (alpha) or (alpha, mach)");
  return differentiable({Xr, alpha_deg}, true);
}

// inputs: X (global, or this rank's node rows), and optionally (alpha)
// or (alpha, mach), alpha in degrees; the op's value is (CL, CD, CM).
ad::Var SteadyFlow::differentiable(const ad::Vars& inputs, bool rank_rows) {
  // The forward pass runs now (eager); the rules keep its linearization.
  auto lin = std::make_shared<std::shared_ptr<Linearization>>();
  SteadyFlow* self = this;
  const bool with_alpha = inputs.size() == 2;
  const bool with_mach = with_alpha && inputs[1].size() == 2;
  return ad::custom_op(
      "euler_steady_flow", inputs,
      [self, lin, with_alpha, with_mach, rank_rows](const std::vector<Tensor>& values) {
        const std::vector<double> p = with_alpha ? values[1].to_vector() : std::vector<double>{};
        const double alpha = with_alpha ? p[0] : self->settings_.flow.alpha_deg;
        *lin = self->solve(rank_rows ? values[0] : self->rows_of(values[0]), alpha,
                           with_mach ? p[1] : 0.0);
        return coefficient_vector((*lin)->forces);
      },
      [self, lin, with_alpha, with_mach, rank_rows](const ad::Vars& in, const ad::Var&,
                                                    const ad::Var& grad_out) -> ad::Vars {
        const auto start = std::chrono::steady_clock::now();
        Linearization& l = **lin;
        l.prepare_derivatives(self->settings_.adjoint, self->patterns());
        const auto w = l.disc->force_coefficient_weights();
        const auto g = grad_out.value().host();
        std::array<double, 3> weights = {0.0, 0.0, 0.0};
        for (int m = 0; m < 3; ++m)
          for (int k = 0; k < 3; ++k)
            weights[static_cast<size_t>(k)] += g(m) * w[static_cast<size_t>(m)][static_cast<size_t>(k)];
        const AdjointSolution a = l.adjoint->solve(l.U, weights);
        CAMBER_REQUIRE(a.converged, "the adjoint solve did not converge in "
                                        << a.iterations << " GMRES iterations");
        Tensor share = l.shape->rank_derivative(l.U, a.psi, a.weights);
        l.sensitivities.push_back({weights, a.psi, share});
        self->report_.adjoint_iterations = a.iterations;
        self->report_.adjoint_seconds = seconds_since(start);
        ad::Vars out{ad::constant(rank_rows ? share : self->global_of(share))};
        if (with_alpha && in[1].requires_grad()) {
          std::vector<double> d{l.adjoint->alpha_derivative(l.U, a)};
          if (with_mach) {
            // The objective's value: the cotangent's combination of CL, CD, CM.
            const double J = g(0) * l.forces.cl + g(1) * l.forces.cd + g(2) * l.forces.cm;
            d.push_back(l.adjoint->mach_derivative(l.U, a, J));
          }
          out.push_back(ad::constant(Tensor::from_host(in[1].shape(), d)));
        } else if (with_alpha) {
          out.push_back(ad::Var());
        }
        return out;
      },
      [self, lin, with_alpha, with_mach, rank_rows](const ad::Vars&, const ad::Var&,
                                                    const ad::Vars& tangents) -> ad::Var {
        const std::vector<double> dp =
            with_alpha ? tangents[1].value().to_vector() : std::vector<double>{};
        const double da = with_alpha ? dp[0] : 0.0;
        const double dm = with_mach ? dp[1] : 0.0;
        const Tensor V = rank_rows ? tangents[0].value() : self->rows_of(tangents[0].value());
        const std::array<double, 3> d = self->tangent(**lin, &V, da, dm);
        return ad::constant(Tensor::from_host({3}, {d[0], d[1], d[2]}));
      });
}

// (dR/dU) dU = -(dR/dX) V - (dR/dalpha) da;
// dJ_m = w_m . (dG/dX V) + dJ_m/dalpha|_U da + dJ_m/dU . dU.
std::array<double, 3> SteadyFlow::tangent(Linearization& l, const Tensor* V, double da, double dm) {
  const auto start = std::chrono::steady_clock::now();
  if (!l.adjoint) l.adjoint = std::make_unique<Adjoint>(*l.disc, settings_.adjoint, patterns().jacobian);
  std::array<double, 3> dG = {0.0, 0.0, 0.0};
  Tensor rhs;
  if (V) {
    if (!l.shape) l.shape = std::make_unique<ShapeDerivative>(*l.disc, patterns().shape);
    rhs = l.shape->rank_directional(l.U, *V, dG);
    if (da != 0.0) rhs.axpy(da, l.adjoint->residual_alpha_derivative(l.U));
  } else {
    rhs = l.adjoint->residual_alpha_derivative(l.U);
    rhs *= da;
  }
  if (dm != 0.0) rhs.axpy(dm, l.adjoint->residual_mach_derivative(l.U));
  rhs *= -1.0;
  int its = 0;
  const Tensor dU = l.adjoint->solve_tangent(l.U, rhs, &its);
  const auto w = l.disc->force_coefficient_weights();
  // dJ_m/dU . dU for CL, CD and CM from one colour sweep.
  const std::vector<Tensor> g = l.adjoint->objective_gradients(l.U, {w[0], w[1], w[2]});
  const auto dh = dU.host();
  std::array<double, 3> out = {0.0, 0.0, 0.0};
  for (int m = 0; m < 3; ++m) {
    const auto& wm = w[static_cast<size_t>(m)];
    const auto gh = g[static_cast<size_t>(m)].host();
    double s = 0.0;
    for (index_t i = 0; i < l.disc->n_owned() * l.disc->n_vars(); ++i) s += gh(i) * dh(i);
    out[static_cast<size_t>(m)] =
        par::allreduce_sum(s, comm_) + wm[0] * dG[0] + wm[1] * dG[1] + wm[2] * dG[2];
    if (da != 0.0) out[static_cast<size_t>(m)] += da * l.adjoint->objective_alpha_partial(l.U, wm);
    if (dm != 0.0) {
      const double c[3] = {l.forces.cl, l.forces.cd, l.forces.cm};
      out[static_cast<size_t>(m)] += dm * (-2.0 * c[m] / l.disc->flow().mach);
    }
  }
  report_.adjoint_iterations = its;
  report_.adjoint_seconds = seconds_since(start);
  return out;
}

std::array<double, 3> SteadyFlow::alpha_tangent() {
  CAMBER_REQUIRE(last_, "SteadyFlow::alpha_tangent: no flow has been solved yet");
  return tangent(*last_, nullptr, 1.0);
}

const Tensor& SteadyFlow::state() const {
  CAMBER_REQUIRE(last_, "SteadyFlow::state: no flow has been solved yet");
  return last_->U;
}

const Discretization& SteadyFlow::discretization() const {
  CAMBER_REQUIRE(last_, "SteadyFlow::discretization: no flow has been solved yet");
  return *last_->disc;
}

void SteadyFlow::set_state(const Tensor& U) { warm_start_ = U.clone(); }

const std::vector<SteadyFlow::Sensitivity>& SteadyFlow::sensitivities() const {
  CAMBER_REQUIRE(last_, "SteadyFlow::sensitivities: no flow has been solved yet");
  return last_->sensitivities;
}

}  // namespace camber::solvers::euler
