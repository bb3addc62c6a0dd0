/// @file
/// Gradient checks for differentiable tensor functions (as torch's gradcheck
/// and gradgradcheck, or Ceres' GradientChecker).
///
/// For y = f(x_1, ..., x_m) written with camber::ad ops:
/// @code
///   check_gradients     reverse mode J^T w and forward mode J v against
///                       central finite differences (random w, v),
///   check_second_order  reverse-over-reverse and forward-over-reverse
///                       derivatives of x -> <u, J(x)^T w> against central
///                       differences of the first-order VJP,
///   check_dot_product   <J v, w> == <v, J^T w> (tangent against adjoint),
///   check_all           all three.
///
///   namespace ad = camber::ad;
///   auto f = [](const ad::Vars& x) { return ad::tanh(ad::matmul(x[0], x[1])); };
///   ad::GradCheckResult r = ad::check_all(f, {A0, B0});
///   EXPECT_TRUE(r.ok) << r.report();
/// @endcode
///
/// Finite differences. Input element x_e is perturbed by h = step * max(1,
/// |x_e|) and the scalar phi(x) = <w, f(x)> is differenced centrally:
/// @code
///   D = (phi(x + h e) - phi(x - h e)) / (2h),
///   |D - dphi/dx_e| <= h^2 |phi'''| / 6  +  (rounding of phi) / h.
/// @endcode
/// The check accepts an AD value a where
/// @code
///   |a - D| <= rtol * max(|a|, |D|) + c_trunc * h^2 * (1 + S) + c_round * eps * S / h,
/// @endcode
/// with S = sum_j |w_j f_j(x)| the magnitude of the terms of phi (its
/// rounding error is about eps * S per operation), c_trunc bounding
/// |phi'''| / 6 relative to 1 + S (functions whose third derivative is far
/// larger than their values need a smaller step), and c_round a count of
/// roundings. The default step 1e-5 is near eps^(1/3), the step that
/// balances the two error terms. Directional (forward-mode) checks use the
/// same bound with h = step * max(1, max|x|) and v scaled to max|v| = 1.
/// The dot-product test has no truncation error: it accepts
/// @code
///   |<J v, w> - <v, J^T w>| <= c_round * eps * (sum|J v| |w| + sum |v| |J^T w|).
/// @endcode
///
/// Inputs must be away from kinks (relu, abs, max at ties) by more than the
/// step, and inside the domain (log, sqrt) by more than the step. Cost: two
/// evaluations of f per input element (first order), two first-order VJPs
/// per element (second order): meant for small test shapes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <camber/autodiff/functional.hpp>

namespace camber::ad {

struct GradCheckOptions {
  double step = 1e-5;             ///< relative finite-difference step
  double rtol = 1e-6;             ///< relative tolerance on top of the error bound
  double c_trunc = 10.0;          ///< truncation constant (see above)
  double c_round = 100.0;         ///< rounding constant (see above)
  std::uint64_t seed = 20261129;  ///< for the random w, v, u
};

struct GradCheckResult {
  bool ok = true;
  /// Over all compared entries: the largest |a - D|, the largest
  /// |a - D| / max(|a|, |D|), and the largest error / tolerance (> 1 fails).
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  double worst_ratio = 0.0;
  std::string worst;  ///< the entry with the largest ratio: what, where, values
  int n_compared = 0;
  /// One line for a test failure message.
  std::string report() const;
  /// Merges another check's result (ok if both are).
  void merge(const GradCheckResult& other);
};

using CheckFunction = std::function<Var(const Vars&)>;

GradCheckResult check_gradients(const CheckFunction& f, const std::vector<Tensor>& inputs,
                                const GradCheckOptions& options = {});
GradCheckResult check_second_order(const CheckFunction& f, const std::vector<Tensor>& inputs,
                                   const GradCheckOptions& options = {});
GradCheckResult check_dot_product(const CheckFunction& f, const std::vector<Tensor>& inputs,
                                  const GradCheckOptions& options = {});
GradCheckResult check_all(const CheckFunction& f, const std::vector<Tensor>& inputs,
                          const GradCheckOptions& options = {});

}  // namespace camber::ad
