// Writes small valid model files (float64 and float32 MLPs, a residual
// MLP) into a folder: the seeds of the model-file fuzz targets, made by the
// code under test rather than kept as binaries in the tree. With --content
// it writes only the HDF5 part of each (what fuzz_model_content seals).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <camber/nn/io/model_file.hpp>
#include <camber/core/runtime.hpp>

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_model_seeds DIR [--content]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const bool content = argc > 2 && std::strcmp(argv[2], "--content") == 0;
  namespace nn = camber::nn;
  int k = 0;
  for (const char* kind : {"mlp", "residual_mlp"})
    for (camber::DType dt : {camber::DType::float64, camber::DType::float32}) {
      nn::NetworkSpec spec;
      spec.kind = kind;
      spec.in = 2;
      spec.out = 1;
      spec.hidden = {4, 4};
      spec.dtype = dt;
      nn::Rng rng(1);
      auto net = nn::make_network(spec, rng);
      nn::Surrogate s(spec, net->parameter_values(), {{"a", "b"}, {"", "m"}}, {{"y"}, {""}},
                      {{0.0, 1.0}, {1.0, 2.0}}, {{0.5}, {0.25}});
      nn::io::ModelCard card;
      card.data_path = "seed.h5";
      card.validation_rmse = {0.01};
      card.training_deck = "case: seed\n";
      const std::string path = dir + "/seed" + std::to_string(k++) + ".h5";
      nn::io::save_model(path, s, card);
      if (content) {  // drop the 512-byte header
        std::ifstream in(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), {});
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(512);
      }
    }
  std::printf("wrote %d seeds to %s\n", k, dir.c_str());
  return 0;
}
