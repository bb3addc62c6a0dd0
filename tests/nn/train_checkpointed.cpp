// A training run that checkpoints after every epoch and can be killed
// part-way (SIGKILL right after the checkpoint of epoch K); run again on the
// same folder it resumes from the checkpoint. Writes the final weights to
// DIR/weights.txt (17 significant digits). check_resume.sh compares a
// killed-and-resumed run with an uninterrupted one.
//
//   train_checkpointed DIR [KILL_AFTER_EPOCH]
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/io/checkpoint.hpp>
#include <camber/nn/layers.hpp>
#include <camber/core/runtime.hpp>

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::Tensor;

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(MPI_COMM_WORLD, [&]() {
    CAMBER_INPUT_REQUIRE(argc >= 2, "usage: train_checkpointed DIR [KILL_AFTER_EPOCH]");
    const std::string dir = argv[1];
    const int kill_after = argc > 2 ? std::atoi(argv[2]) : 0;
    const std::string ckpt = dir + "/checkpoint.h5";
    nn::Rng data_rng(12);
    std::vector<double> xs, ys;
    for (int i = 0; i < 90; ++i) {
      const double a = data_rng.uniform(-1, 1), b = data_rng.uniform(-1, 1);
      xs.push_back(a);
      xs.push_back(b);
      ys.push_back(std::tanh(a - 2 * b) + 0.05 * data_rng.normal());
    }
    const Tensor x = Tensor::from_host({90, 2}, xs), y = Tensor::from_host({90, 1}, ys);
    nn::Rng rng(3);
    const auto net = nn::mlp({2, {10, 10}, 1, nn::Activation::silu}, rng);
    nn::AdamW opt(net->parameters(), {5e-3});
    nn::TrainOptions o;
    o.epochs = 8;
    o.batch_size = 16;
    o.seed = 77;
    o.validation_fraction = 0.2;
    o.schedule = nn::warmup(nn::cosine_lr(5e-3, 8 * 5), 5);
    nn::Trainer trainer(*net, opt, o, MPI_COMM_WORLD);
    if (std::filesystem::exists(ckpt)) {
      nn::io::load_checkpoint(ckpt, *net, opt, trainer, MPI_COMM_WORLD);
      camber::logging::info("resumed from " + ckpt + " after epoch " + std::to_string(trainer.epoch()));
    }
    trainer.on_epoch([&](const nn::EpochRecord& r) {
      nn::io::save_checkpoint(ckpt, *net, opt, trainer, MPI_COMM_WORLD);
      if (r.epoch == kill_after && camber::comm_rank(MPI_COMM_WORLD) == 0) std::raise(SIGKILL);
    });
    trainer.fit(nn::shard_of(x, y, MPI_COMM_WORLD));
    if (camber::comm_rank(MPI_COMM_WORLD) == 0) {
      std::FILE* out = std::fopen((dir + "/weights.txt").c_str(), "w");
      for (const Tensor& p : net->parameter_values())
        for (double v : p.to_vector()) std::fprintf(out, "%.17g\n", v);
      std::fclose(out);
    }
    return 0;
  });
}
