// Writes K model files, DIR/m1.h5 .. DIR/mK.h5 (different weights, cards
// naming epochs = k; two hidden layers of WIDTH, default 16), and
// DIR/data.h5, 16 rows of the models' columns (for commands that take a
// data set: quantize), for the registry's command-line tests.
//   write_test_models DIR K [WIDTH]
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <camber/core/runtime.hpp>
#include <camber/core/tensor.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/model_file.hpp>

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: write_test_models DIR K [WIDTH]\n";
    return 2;
  }
  camber::Runtime runtime(argc, argv);
  namespace nn = camber::nn;
  const std::string dir = argv[1];
  const int k = std::atoi(argv[2]);
  const camber::index_t width = argc == 4 ? std::atol(argv[3]) : 16;
  std::filesystem::create_directories(dir);
  for (int i = 1; i <= k; ++i) {
    nn::NetworkSpec spec;
    spec.kind = "mlp";
    spec.in = 2;
    spec.out = 3;
    spec.hidden = {width, width};
    nn::Rng rng(static_cast<std::uint64_t>(i));
    auto net = nn::make_network(spec, rng);
    nn::Surrogate s(spec, net->parameter_values(), {{"mach", "alpha_deg"}, {"", "deg"}},
                    {{"CL", "CD", "CM"}, {"", "", ""}}, {{0.6, 2.0}, {0.1, 1.5}},
                    {{0.3, 0.01, -0.02}, {0.2, 0.005, 0.01}});
    nn::io::ModelCard c;
    c.data_path = "samples.h5";
    c.data_sha256 = std::string(64, 'c');
    c.data_rows = 64;
    c.epochs = i;
    c.training_deck = "case: test_model\ntraining:\n  epochs: " + std::to_string(i) + "\n";
    c.validation_rmse = {1e-3 / i, 1e-4 / i, 2e-4 / i};
    nn::io::save_model(dir + "/m" + std::to_string(i) + ".h5", s, c);
  }
  std::vector<double> x, y;
  for (int r = 0; r < 16; ++r) {
    const double mach = 0.4 + 0.02 * r, alpha = -1.0 + 0.25 * r;
    x.insert(x.end(), {mach, alpha});
    y.insert(y.end(), {0.1 * alpha, 0.01 + 0.001 * alpha * alpha, -0.01 * alpha});
  }
  nn::io::write_dataset(dir + "/data.h5", camber::Tensor::from_host({16, 2}, x),
                        camber::Tensor::from_host({16, 3}, y), {{"mach", "alpha_deg"}, {"", "deg"}},
                        {{"CL", "CD", "CM"}, {"", "", ""}}, runtime.comm());
  return 0;
}
