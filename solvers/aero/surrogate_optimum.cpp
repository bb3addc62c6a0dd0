#include "surrogate_optimum.hpp"

#include <algorithm>
#include <memory>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/evaluation.hpp>
#include <camber/nn/io/model_file.hpp>

namespace camber::solvers::aero {

SurrogateOptimum optimize_surrogate(const nn::Surrogate& surrogate, const std::vector<double>& lower,
                                    const std::vector<double>& upper,
                                    const SurrogateOptimumSettings& s, MPI_Comm comm) {
  const index_t n_in = surrogate.spec().in, n_out = surrogate.spec().out;
  const size_t n = static_cast<size_t>(n_in);
  CAMBER_INPUT_REQUIRE(s.objective >= 0 && s.objective < n_out,
                       "the objective is output " << s.objective << " of " << n_out);
  CAMBER_INPUT_REQUIRE(s.constraint >= -1 && s.constraint < n_out,
                       "the constraint is output " << s.constraint << " of " << n_out);
  CAMBER_INPUT_REQUIRE(lower.size() == n && upper.size() == n,
                       "bounds of " << lower.size() << " and " << upper.size() << " values for "
                                    << n << " inputs");
  for (size_t j = 0; j < n; ++j)
    CAMBER_INPUT_REQUIRE(lower[j] <= upper[j],
                         "input " << j << ": lower bound " << lower[j] << " above " << upper[j]);
  const bool constrained = s.constraint >= 0;
  const double sign = s.maximize ? -1.0 : 1.0;
  // Every output at x and the rows of the Jacobian.
  const auto evaluate = [&](const std::vector<double>& x, std::vector<double>& y,
                            std::vector<double>& jacobian) {
    const Tensor xt = Tensor::from_host({1, n_in}, x);
    y = surrogate.predict(xt).to_vector();
    jacobian = surrogate.jacobian(xt).to_vector();  // {1, n_out, n_in}
  };
  opt::Problem problem;
  problem.lower = lower;
  problem.upper = upper;
  for (size_t j = 0; j < n; ++j) problem.x0.push_back(0.5 * (lower[j] + upper[j]));
  problem.n_inequality = constrained ? 1 : 0;
  problem.evaluate = [&](const std::vector<double>& x) {
    std::vector<double> y, jac;
    evaluate(x, y, jac);
    opt::Evaluation e;
    const size_t o = static_cast<size_t>(s.objective);
    e.objective = sign * y[o];
    for (size_t j = 0; j < n; ++j) e.objective_gradient.push_back(sign * jac[o * n + j]);
    if (constrained) {
      const size_t c = static_cast<size_t>(s.constraint);
      e.inequality.push_back(s.constraint_min - y[c]);
      std::vector<double> row;
      for (size_t j = 0; j < n; ++j) row.push_back(-jac[c * n + j]);
      e.inequality_gradients.push_back(row);
    }
    return e;
  };
  opt::Options oo;
  oo.algorithm = "slsqp";
  oo.max_evaluations = s.max_evaluations;
  // Scaled variables of order one: SLSQP is not scale-invariant.
  for (size_t j = 0; j < n; ++j) oo.x_scale.push_back(std::max(upper[j] - lower[j], 1e-12));
  opt::Optimizer optimizer(problem, oo, comm);
  const opt::Result r = optimizer.minimize();
  SurrogateOptimum best;
  best.x = r.x;
  best.evaluations = r.n_evaluations;
  best.status = r.status;
  std::vector<double> jac;
  evaluate(r.x, best.y, jac);
  return best;
}

namespace {

// The column of `name` among `columns`, or -1.
int column_of(const nn::Columns& columns, const std::string& name) {
  for (size_t k = 0; k < columns.names.size(); ++k)
    if (columns.names[k] == name) return static_cast<int>(k);
  return -1;
}

}  // namespace

SavedSurrogateOptimum optimize_saved_surrogate(const std::string& model_path,
                                               const std::string& data_path,
                                               const SurrogateOptimumByName& s, MPI_Comm comm,
                                               const SurrogateOptimumReject& reject) {
  const nn::io::DataSet data = nn::io::read_dataset(data_path, comm);
  SurrogateOptimumSettings settings = s.optimum;
  collective_guard(comm, [&] {
    const auto output = [&](const char* member, const std::string& name) {
      const int k = column_of(data.outputs, name);
      if (k >= 0) return k;
      std::string list;
      for (const std::string& n : data.outputs.names) list += (list.empty() ? "" : ", ") + n;
      const std::string what = "'" + name + "' is not an output of the data set (" + list + ")";
      if (reject) reject(member, what);
      throw_bad_input(std::string(member) + ": " + what);
    };
    settings.objective = output("objective", s.objective);
    settings.constraint = s.constraint.empty() ? -1 : output("constraint", s.constraint);
  });
  std::unique_ptr<nn::io::Model> model;
  collective_guard(comm, [&] { model = std::make_unique<nn::io::Model>(nn::io::load_model(model_path)); });
  const nn::Surrogate& surrogate = model->surrogate;
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(surrogate.inputs().names == data.inputs.names &&
                             surrogate.outputs().names == data.outputs.names,
                         model_path << " was trained on other columns than " << data_path
                                    << " holds: train again");
  });
  // Bounds: the data's range of each input (the surrogate knows nothing beyond).
  const auto [lo, hi] = nn::io::input_range(data, comm);
  SavedSurrogateOptimum best;
  best.optimum = optimize_surrogate(surrogate, lo, hi, settings, comm);
  best.inputs = data.inputs;
  best.outputs = data.outputs;
  return best;
}

}  // namespace camber::solvers::aero
