#include <camber/solvers/ode/ode_op.hpp>

#include <memory>

#include <camber/autodiff/functional.hpp>
#include <camber/core/error.hpp>

namespace camber::solvers::ode {

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

// c dG/dp as an op of (y0, p, c), for second derivatives in p: its JVP
// along (0, v, dc) is dc dG/dp + c H v, its VJP of h is (-, c H h, <h,
// dG/dp>), H v from integral_hvp (forward over adjoint; H is symmetric).
// Derivatives with respect to y0 through it are refused: integral_hvp
// keeps y0 fixed.
struct IntegralProblem {
  OdeSystem system;
  OdeIntegrand integrand;
  CvodesOptions options;
  AdjointOptions adjoint;
  double t0 = 0.0, t_end = 0.0;
  std::vector<double> hvp(const Tensor& y0, const Tensor& p, const std::vector<double>& v) const {
    OdeSystem s = system;
    s.p = values_of(p);
    return integral_hvp(s, integrand, options, t0, values_of(y0), t_end, v, adjoint).hvp;
  }
};

ad::Var scaled_gradient(std::shared_ptr<const IntegralProblem> problem, std::vector<double> d_p, const ad::Var& y0,
                        const ad::Var& p, const ad::Var& c) {
  const index_t np = p.shape()[0];
  std::vector<double> value = d_p;
  const double cv = values_of(c.value())[0];
  for (double& x : value) x *= cv;
  const auto refuse_y0 = [](const ad::Var& y) {
    CAMBER_REQUIRE(!y.requires_grad(), "ode_integral: second derivatives with respect to y0 are not implemented "
                                       "(integral_hvp keeps y0 fixed); make y0 a constant");
  };
  return ad::custom_op(
      "ode_integral_gradient", {y0, p, c}, [value, np](const std::vector<Tensor>&) { return Tensor::from_host({np}, value); },
      [=](const ad::Vars& in, const ad::Var&, const ad::Var& h) -> ad::Vars {
        refuse_y0(in[0]);
        const std::vector<double> hv = values_of(h.value());
        std::vector<double> Hh = problem->hvp(in[0].value(), in[1].value(), hv);
        const double c_now = values_of(in[2].value())[0];
        for (double& x : Hh) x *= c_now;
        double dc = 0.0;
        for (size_t j = 0; j < hv.size(); ++j) dc += hv[j] * d_p[j];
        return {first_order("ode_integral_hvp", {in[0], in[1], h}, Tensor::zeros(in[0].shape())),
                first_order("ode_integral_hvp", {in[0], in[1], h}, Tensor::from_host({np}, Hh)),
                first_order("ode_integral_hvp", {in[0], in[1], h}, Tensor::from_host(in[2].shape(), {dc}))};
      },
      [=](const ad::Vars& in, const ad::Var&, const ad::Vars& t) -> ad::Var {
        CAMBER_REQUIRE(t[0].value().max_abs() == 0.0,
                       "ode_integral: second derivatives with respect to y0 are not implemented (integral_hvp keeps "
                       "y0 fixed)");
        std::vector<double> out = problem->hvp(in[0].value(), in[1].value(), values_of(t[1].value()));
        const double c_now = values_of(in[2].value())[0], dc = values_of(t[2].value())[0];
        for (size_t j = 0; j < out.size(); ++j) out[j] = c_now * out[j] + dc * d_p[j];
        return first_order("ode_integral_hvp", {in[0], in[1], t[1]}, Tensor::from_host({np}, out));
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
  auto problem = std::make_shared<const IntegralProblem>(IntegralProblem{system, integrand, options, adjoint, t0, t_end});
  return ad::custom_op(
      "ode_integral", {y0, p},
      [=](const std::vector<Tensor>& in) {
        *sweep = gradient(in[0], in[1]);
        return Tensor::from_host({1}, {sweep->value});
      },
      [=](const ad::Vars& in, const ad::Var&, const ad::Var& g) -> ad::Vars {
        const IntegralGradient& r = *sweep;
        const double c = values_of(g.value())[0];
        std::vector<double> dy0 = r.d_dy0;
        for (double& v : dy0) v *= c;
        // A constant y0's cotangent is unused: no node, so a forward pass
        // over this backward one does not ask for its second derivatives.
        const Tensor d_y0 = Tensor::from_host({n}, dy0);
        return {in[0].requires_grad() ? first_order("ode_integral_vjp", {in[0], in[1], g}, d_y0) : ad::constant(d_y0),
                scaled_gradient(problem, r.d_dp, in[0], in[1], g)};
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

}  // namespace camber::solvers::ode
