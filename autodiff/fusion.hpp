/// @file
/// Fusion of element-wise ops: chains of them, and their derivatives, run as
/// one kernel.
///
/// With fusion on (the default), an element-wise op of autodiff/ops.hpp
/// (arithmetic, exp, sin, where, maximum, ..., and broadcast_to and slice)
/// does not compute its value. It returns a pending Var: an expression over
/// the materialized tensors it reads (its leaves). Further element-wise ops
/// extend the expression. The value is computed, by one kernel that reads
/// the leaves once and writes the result once, when something needs it:
/// Var::value(), a non-element-wise op (matmul, gather, reshape, ...), or a
/// sum, which runs the expression inside its reduction kernel (a sum of
/// squares is one pass over its input and stores nothing).
///
/// The graph records one node per pending Var whose inputs are the leaves;
/// its VJP rebuilds the expression and differentiates it symbolically, and
/// the cotangents are again pending expressions, so the backward pass of a
/// chain also runs as one kernel and the graph keeps only the leaves (no
/// intermediate of the chain is stored). Derivatives of any order, forward
/// mode and their mixtures work as without fusion. The register program and
/// the kernels are described in autodiff/detail/fusion.hpp; the choice of
/// this design over generated code is in docs/architecture.md.
///
/// @code
///   namespace ad = camber::ad;
///   ad::Var x = ad::variable(x0);
///   ad::Var y = ad::sum(ad::exp(ad::sin(x)) * x + 1.0);  // one kernel, no temporaries
///   ad::Var g = ad::grad(y, {x})[0];                     // one kernel again
///   { ad::FusionGuard off(false); ... }                  // every op runs at once
/// @endcode
///
/// What changes for a user:
///  - an intermediate that was folded into a later expression is not a node
///    of the graph that expression's result belongs to, so it cannot be a
///    target of grad()/vjp() (an error says so): ad::materialize() it first
///    (or turn fusion off);
///  - a tensor a pending expression reads must not be changed in place
///    before the expression is computed (an error names it): materialize()
///    first, or clone() the tensor.
///
/// Fusion is on unless the environment sets CAMBER_FUSION=0; FusionGuard
/// turns it on or off for a scope (thread-local, like NoGradGuard).
#pragma once

#include <camber/autodiff/variable.hpp>

namespace camber::ad {

bool fusion_enabled() noexcept;

class FusionGuard {
 public:
  explicit FusionGuard(bool enabled);
  ~FusionGuard();
  FusionGuard(const FusionGuard&) = delete;
  FusionGuard& operator=(const FusionGuard&) = delete;

 private:
  bool previous_;
};

/// True while v's value is a pending expression.
bool is_pending(const Var& v);
/// Computes v's value now if it is pending; later ops read the stored value
/// instead of recomputing the expression (a fusion barrier). Returns v.
const Var& materialize(const Var& v);
/// The same for several Vars: pending ones of equal shape are computed by
/// one kernel (up to 8 at a time).
void materialize(const Vars& vs);

}  // namespace camber::ad
