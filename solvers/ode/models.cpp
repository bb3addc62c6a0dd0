#include "models.hpp"

#include <camber/core/error.hpp>

namespace camber::solvers::ode {

const std::vector<BuiltinModel>& builtin_models() {
  static const std::vector<BuiltinModel> models = {
      {"robertson",
       "Robertson's chemical kinetics: y1' = -p1 y1 + p2 y2 y3, y3' = p3 y2^2, y2' = -y1' - y3'", 3, 3},
      {"lotka_volterra", "predator and prey: y1' = p1 y1 - p2 y1 y2, y2' = -p3 y2 + p4 y1 y2", 2, 4},
  };
  return models;
}

const BuiltinModel& builtin_model_info(const std::string& name) {
  std::string list;
  for (const BuiltinModel& m : builtin_models()) {
    if (m.name == name) return m;
    list += (list.empty() ? "" : ", ") + m.name;
  }
  throw Error(ErrorKind::bad_input, "unknown ODE model '" + name + "'; valid: " + list);
}

OdeSystem builtin_model(const std::string& name, std::vector<double> p) {
  const BuiltinModel& m = builtin_model_info(name);
  CAMBER_INPUT_REQUIRE(static_cast<int>(p.size()) == m.parameters,
                       m.name << " has " << m.parameters << " parameters, got " << p.size());
  if (m.name == "lotka_volterra")
    return make_ode_system(2, std::move(p), [](double, const auto* y, const auto* q, auto* ydot) {
      ydot[0] = q[0] * y[0] - q[1] * y[0] * y[1];
      ydot[1] = -q[2] * y[1] + q[3] * y[0] * y[1];
    });
  return make_ode_system(3, std::move(p), [](double, const auto* y, const auto* q, auto* ydot) {
    ydot[0] = -q[0] * y[0] + q[1] * y[1] * y[2];
    ydot[2] = q[2] * y[1] * y[1];
    ydot[1] = -ydot[0] - ydot[2];
  });
}

}  // namespace camber::solvers::ode
