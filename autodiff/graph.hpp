/// @file
/// camber::ad tensor graph — one include for differentiable tensors.
///
/// Var (autodiff/variable.hpp) is a camber::Tensor with a recorded graph;
/// ops.hpp has the differentiable ops; functional.hpp the transformations
/// (grad, vjp, jvp, hvp, jacobian, hessian, checkpoint, custom_op);
/// fusion.hpp the fusion of element-wise chains into one kernel;
/// gradcheck.hpp the finite-difference and dot-product checks.
///
/// @code
///   #include <camber/autodiff/graph.hpp>
///   namespace ad = camber::ad;
///   ad::Var x = ad::variable(camber::Tensor::from_host({2}, {0.5, 1.0}));
///   ad::Var y = ad::sum(ad::exp(x) * ad::sin(x));
///   ad::Var dydx = ad::grad(y, {x})[0];
/// @endcode
///
/// For derivatives inside Kokkos kernels (per cell, per face) use the
/// forward-mode Dual numbers of autodiff/dual.hpp instead.
#pragma once

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/fusion.hpp>
#include <camber/autodiff/gradcheck.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/autodiff/variable.hpp>
