// C++ API tour 7: a neural network trained, saved, loaded and used
// (components: nn, nn_io).
//
// Shows: nn::make_network (an MLP from a NetworkSpec), nn::Trainer with
// Adam on a data set held in memory (data parallel over the ranks),
// nn::Surrogate (the network with named, unit-carrying inputs and outputs
// and their normalisation), nn::io::save_model and nn::io::load_model, and
// predict(). Checks: the network fits f(x, y) = sin(pi x) y on [-1, 1]^2
// to an RMS error below 0.02 on points it was not trained on, and the
// loaded model predicts exactly (bit for bit) what the saved one did.
//
//   mpirun -n 2 build-tour/tour_nn [model.h5]
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/surrogate.hpp>
#include <camber/nn/trainer.hpp>

namespace nn = camber::nn;
using camber::index_t;
using camber::Tensor;

namespace {

constexpr double pi = 3.14159265358979323846;
double f(double x, double y) { return std::sin(pi * x) * y; }

// n points of [-1, 1]^2 from `rng`, and f there.
void sample(index_t n, nn::Rng& rng, Tensor& x, Tensor& y) {
  std::vector<double> xs, ys;
  for (index_t i = 0; i < n; ++i) {
    const double a = rng.uniform(-1.0, 1.0), b = rng.uniform(-1.0, 1.0);
    xs.insert(xs.end(), {a, b});
    ys.push_back(f(a, b));
  }
  x = Tensor::from_host({n, 2}, xs);
  y = Tensor::from_host({n, 1}, ys);
}

}  // namespace

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    const std::string path = argc > 1 ? argv[1] : "tour_nn_model.h5";

    // The same data on every rank (the same seed); the trainer takes each
    // rank's share of the rows.
    nn::Rng data_rng(7);
    Tensor x, y, x_test, y_test;
    sample(1024, data_rng, x, y);
    sample(256, data_rng, x_test, y_test);

    nn::NetworkSpec spec;
    spec.in = 2;
    spec.out = 1;
    spec.hidden = {32, 32};
    nn::Rng init(1);
    auto net = nn::make_network(spec, init);
    nn::AdamOptions adam;
    adam.lr = 1e-2;
    nn::Adam optimizer(net->parameters(), adam);
    nn::TrainOptions options;
    options.epochs = 300;
    options.batch_size = 128;
    options.progress = false;
    nn::Trainer trainer(*net, optimizer, options, runtime.comm());
    const nn::TrainResult result = trainer.fit(nn::shard_of(x, y, runtime.comm()));
    if (runtime.rank() == 0) std::printf("%s\n", result.summary.c_str());

    // The trained network as a model: named inputs and outputs, and the
    // normalisation (identity here: the data are already of order one).
    nn::Surrogate surrogate(spec, net->parameter_values(), {{"x", "y"}, {"", ""}}, {{"f"}, {""}},
                            {{0.0, 0.0}, {1.0, 1.0}}, {{0.0}, {1.0}});
    const Tensor predicted = surrogate.predict(x_test);
    const std::vector<double> p = predicted.to_vector(), t = y_test.to_vector();
    double sq = 0.0;
    for (size_t i = 0; i < p.size(); ++i) sq += (p[i] - t[i]) * (p[i] - t[i]);
    const double rmse = std::sqrt(sq / static_cast<double>(p.size()));

    // Rank 0 writes the file (atomically); every rank loads it after.
    if (runtime.rank() == 0) {
      nn::io::ModelCard card;
      card.epochs = options.epochs;
      card.validation_rmse = {rmse};
      nn::io::save_model(path, surrogate, card);
    }
    MPI_Barrier(runtime.comm());
    const nn::io::Model loaded = nn::io::load_model(path);
    const Tensor again = loaded.surrogate.predict(x_test);
    const std::vector<double> q = again.to_vector();
    double max_change = 0.0;
    for (size_t i = 0; i < p.size(); ++i) max_change = std::fmax(max_change, std::fabs(p[i] - q[i]));
    if (runtime.rank() == 0) {
      std::printf("test RMS error %.3e over %lld points (limit 2e-2)\n", rmse,
                  static_cast<long long>(p.size()));
      std::printf("%s: %lld bytes, sha256 %s; loaded model's predictions differ by %.1e\n",
                  path.c_str(), static_cast<long long>(loaded.file_bytes),
                  loaded.sha256.substr(0, 16).c_str(), max_change);
    }
    CAMBER_REQUIRE(rmse < 2e-2, "the network did not fit f: RMS error " << rmse);
    CAMBER_REQUIRE(max_change == 0.0, "the loaded model predicts differently: " << max_change);
    return 0;
  });
}
