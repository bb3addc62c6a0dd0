/// @file
/// camber::solvers::ode models — the built-in ODE systems `camber run`
/// integrates from a deck, as OdeSystems with their parameters: Robertson's
/// stiff chemical kinetics and the Lotka-Volterra predator and prey.
///
/// robertson (3 states, 3 parameters; stiff at the classic p = (0.04, 1e4,
/// 3e7), Hairer and Wanner's test problem):
///   y1' = -p1 y1 + p2 y2 y3,  y3' = p3 y2^2,  y2' = -y1' - y3'
/// lotka_volterra (2 states, 4 parameters):
///   y1' = p1 y1 - p2 y1 y2,   y2' = -p3 y2 + p4 y1 y2
///
/// @code
///   const ode::OdeSystem sys = ode::builtin_model("robertson", {0.04, 1e4, 3e7});
///   ode::Cvodes cv(sys, {});
///   cv.reset(0.0, {1.0, 0.0, 0.0});
/// @endcode
///
/// The systems come from make_ode_system, so Jacobians and adjoint
/// gradients are exact (Duals). An unknown name or a parameter count other
/// than the model's is bad_input.
#pragma once

#include <string>
#include <vector>

#include <camber/solvers/ode/cvodes.hpp>

namespace camber::solvers::ode {

struct BuiltinModel {
  std::string name;
  std::string equations;  ///< as the reference prints them
  int states = 0, parameters = 0;
};

/// Every built-in model, in the reference's order.
const std::vector<BuiltinModel>& builtin_models();

/// The model called `name` (bad_input naming the valid ones otherwise).
const BuiltinModel& builtin_model_info(const std::string& name);

/// The model `name` with parameters `p` (exactly its parameter count).
OdeSystem builtin_model(const std::string& name, std::vector<double> p);

}  // namespace camber::solvers::ode
