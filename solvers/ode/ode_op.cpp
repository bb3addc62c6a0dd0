#include <camber/solvers/ode/ode_op.hpp>

#include <memory>

#include <camber/autodiff/functional.hpp>
#include <camber/error.hpp>

namespace camber::solvers {

namespace {

std::vector<double> values_of(const Tensor& t) { return t.to(DType::float64).to_vector(); }

// A first-order-only value: its VJP and JVP refuse, naming the op.
// (ode_solution's and ode_integral's derivatives are values computed by
// SUNDIALS, not graphs of ad:: ops.)
ad::Var first_order(const std::string& name, const ad::Vars& inputs, const Tensor& value) {
  return ad::custom_op(
      name, inputs, [value](const std::vector<Tensor>&) { return value; },
      [name](const ad::Vars&, const ad::Var&, const ad::Var&) -> ad::Vars {
        CAMBER_REQUIRE(false, name << ": second derivatives through ode_solution and ode_integral are not "
                                      "implemented (a VJP of its VJP, or a Hessian-vector product)");
        return {};
      },
      [name](const ad::Vars&, const ad::Var&, const ad::Vars&) -> ad::Var {
        CAMBER_REQUIRE(false, name << ": second derivatives through ode_solution and ode_integral are not "
                                      "implemented (a JVP of its derivative)");
        return {};
      });
}

}  // namespace

ad::Var ode_solution(const OdeSystem& system, const ad::Var& y0, const ad::Var& p, double t0,
                     const std::vector<double>& times, const CvodesOptions& options,
                     const AdjointOptions& adjoint) {
  const index_t n = system.n, K = static_cast<index_t>(times.size());
  CAMBER_REQUIRE(y0.shape() == Shape{n}, "ode_solution: y0 must be {" << n << "}, got "
                                                                       << shape_string(y0.shape()));
  CAMBER_REQUIRE(p.shape().size() == 1, "ode_solution: p must be a vector, got "
                                            << shape_string(p.shape()));
  const auto with_p = [system](const Tensor& pv) {
    OdeSystem s = system;
    s.p = values_of(pv);
    return s;
  };
  return ad::custom_op(
      "ode_solution", {y0, p},
      [=](const std::vector<Tensor>& in) {
        return Tensor::from_host({K, n}, solution_values(with_p(in[1]), options, t0, values_of(in[0]), times));
      },
      [=](const ad::Vars& in, const ad::Var&, const ad::Var& g) -> ad::Vars {
        const SolutionVjp r = solution_vjp(with_p(in[1].value()), options, t0, values_of(in[0].value()),
                                           times, values_of(g.value()), adjoint);
        const index_t np = in[1].shape()[0];
        return {first_order("ode_solution_vjp", {in[0], in[1], g}, Tensor::from_host({n}, r.d_y0)),
                first_order("ode_solution_vjp", {in[0], in[1], g}, Tensor::from_host({np}, r.d_p))};
      },
      [=](const ad::Vars& in, const ad::Var&, const ad::Vars& t) -> ad::Var {
        const std::vector<double> d = solution_jvp(with_p(in[1].value()), options, t0, values_of(in[0].value()),
                                                   times, values_of(t[0].value()), values_of(t[1].value()));
        return first_order("ode_solution_jvp", {in[0], in[1], t[0], t[1]}, Tensor::from_host({K, n}, d));
      });
}

ad::Var ode_integral(const OdeSystem& system, const OdeIntegrand& integrand, const ad::Var& y0,
                     const ad::Var& p, double t0, double t_end, const CvodesOptions& options,
                     const AdjointOptions& adjoint) {
  const index_t n = system.n;
  CAMBER_REQUIRE(y0.shape() == Shape{n}, "ode_integral: y0 must be {" << n << "}, got "
                                                                       << shape_string(y0.shape()));
  CAMBER_REQUIRE(p.shape().size() == 1, "ode_integral: p must be a vector, got " << shape_string(p.shape()));
  const auto gradient = [=](const Tensor& y0v, const Tensor& pv) {
    OdeSystem s = system;
    s.p = values_of(pv);
    return integral_gradients(s, integrand, options, t0, values_of(y0v), {t_end}, adjoint)[0];
  };
  // The forward pass runs the adjoint sweep already (one CVODES run gives G
  // and its gradient); this op's VJP and JVP reuse it.
  auto sweep = std::make_shared<IntegralGradient>();
  return ad::custom_op(
      "ode_integral", {y0, p},
      [=](const std::vector<Tensor>& in) {
        *sweep = gradient(in[0], in[1]);
        return Tensor::from_host({1}, {sweep->value});
      },
      [=](const ad::Vars& in, const ad::Var&, const ad::Var& g) -> ad::Vars {
        const IntegralGradient& r = *sweep;
        const double c = values_of(g.value())[0];
        std::vector<double> dy0 = r.d_dy0, dp = r.d_dp;
        for (double& v : dy0) v *= c;
        for (double& v : dp) v *= c;
        const index_t np = in[1].shape()[0];
        return {first_order("ode_integral_vjp", {in[0], in[1], g}, Tensor::from_host({n}, dy0)),
                first_order("ode_integral_vjp", {in[0], in[1], g}, Tensor::from_host({np}, dp))};
      },
      [=](const ad::Vars& in, const ad::Var&, const ad::Vars& t) -> ad::Var {
        const IntegralGradient& r = *sweep;
        const std::vector<double> dy0 = values_of(t[0].value()), dp = values_of(t[1].value());
        double d = 0.0;
        for (size_t i = 0; i < dy0.size(); ++i) d += r.d_dy0[i] * dy0[i];
        for (size_t j = 0; j < dp.size(); ++j) d += r.d_dp[j] * dp[j];
        return first_order("ode_integral_jvp", {in[0], in[1], t[0], t[1]}, Tensor::from_host({1}, {d}));
      });
}

}  // namespace camber::solvers
