// HDF5 data sets and checkpoints of camber::nn at 1, 2 and 4 ranks: each
// rank reads only its rows (gradients too); names, units and statistics (against their
// closed forms) round-trip; normalised columns have mean 0 and std 1; a
// checkpoint restores weights, optimizer and trainer; malformed files are
// errors naming the file and what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/nn/io/checkpoint.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/layers.hpp>
#include <camber/parallel/collectives.hpp>

#include "../mpi_test_utils.hpp"

namespace {

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::index_t;
using camber::Tensor;
using camber::test::rank;
using camber::test::size;
using camber::test::world;

// Row i: inputs (i, 2i + 1), output 3 - i; 10 rows in all, split by rank.
void write_rows(const std::string& path) {
  const nn::RowRange r = nn::local_rows(10, world());
  std::vector<double> x, y;
  for (index_t i = r.begin; i < r.end; ++i) {
    x.push_back(static_cast<double>(i));
    x.push_back(2.0 * i + 1);
    y.push_back(3.0 - i);
  }
  nn::io::write_dataset(path, Tensor::from_host({r.size(), 2}, x), Tensor::from_host({r.size(), 1}, y),
                    {{"mach", "alpha"}, {"", "deg"}}, {{"cl"}, {""}}, world());
}

TEST(NnDataset, RoundTripReadsOnlyThisRanksRows) {
  const auto dir = camber::test::scratch_dir("nn_io", "dataset");
  const std::string path = (dir / "set.h5").string();
  write_rows(path);
  const nn::io::DataSet d = nn::io::read_dataset(path, world());
  EXPECT_EQ(d.inputs.names, (std::vector<std::string>{"mach", "alpha"}));
  EXPECT_EQ(d.inputs.units, (std::vector<std::string>{"", "deg"}));
  EXPECT_EQ(d.outputs.names, (std::vector<std::string>{"cl"}));
  EXPECT_EQ(d.shard.global_rows, 10);
  const nn::RowRange r = nn::local_rows(10, world());
  EXPECT_EQ(d.shard.offset, r.begin);
  ASSERT_EQ(d.shard.x.dim(0), r.size());
  const std::vector<double> x = d.shard.x.to_vector();
  for (index_t i = 0; i < r.size(); ++i) EXPECT_EQ(x[static_cast<size_t>(2 * i)], r.begin + i);
  // Mean of 0..9 is 4.5, population variance (n^2 - 1) / 12 = 8.25.
  EXPECT_NEAR(d.input_stats.mean[0], 4.5, 1e-15);
  EXPECT_NEAR(d.input_stats.stddev[0], std::sqrt(8.25), 1e-15);
  EXPECT_NEAR(d.input_stats.mean[1], 10.0, 1e-15);
  EXPECT_NEAR(d.input_stats.stddev[1], 2 * std::sqrt(8.25), 1e-14);
  EXPECT_NEAR(d.output_stats.mean[0], -1.5, 1e-15);
  // Normalised: each column has mean 0 and std 1 over all ranks.
  const nn::Shard s = d.normalized();
  const std::vector<double> nx = s.x.to_vector();
  double sum = 0, sq = 0;
  for (index_t i = 0; i < r.size(); ++i) {
    sum += nx[static_cast<size_t>(2 * i + 1)];
    sq += nx[static_cast<size_t>(2 * i + 1)] * nx[static_cast<size_t>(2 * i + 1)];
  }
  sum = camber::par::allreduce_sum(sum, world());
  sq = camber::par::allreduce_sum(sq, world());
  EXPECT_NEAR(sum / 10, 0.0, 1e-15);
  EXPECT_NEAR(sq / 10, 1.0, 1e-14);
  const std::vector<double> back = d.input_stats.invert(s.x).to_vector();
  for (size_t k = 0; k < back.size(); ++k) EXPECT_NEAR(back[k], x[k], 1e-13);
}

TEST(NnDataset, GradientsRoundTripByRowsAndTheirShapeIsChecked) {
  const auto dir = camber::test::scratch_dir("nn_io", "gradients");
  const std::string path = (dir / "grad.h5").string();
  // Row i: inputs (i, -i, 2i), outputs (i^2, 1); gradient [o][k] = 100 i + 10 o + k.
  const nn::RowRange r = nn::local_rows(9, world());
  std::vector<double> x, y, g;
  for (index_t i = r.begin; i < r.end; ++i) {
    for (double v : {1.0 * i, -1.0 * i, 2.0 * i}) x.push_back(v);
    for (double v : {1.0 * i * i, 1.0}) y.push_back(v);
    for (int o = 0; o < 2; ++o)
      for (int k = 0; k < 3; ++k) g.push_back(100.0 * i + 10.0 * o + k);
  }
  nn::io::write_dataset(path, Tensor::from_host({r.size(), 3}, x), Tensor::from_host({r.size(), 2}, y),
                        {{"a", "b", "c"}, {"", "", ""}}, {{"p", "q"}, {"", ""}}, world(), "",
                        Tensor::from_host({r.size(), 2, 3}, g));
  const nn::io::DataSet d = nn::io::read_dataset(path, world());
  ASSERT_EQ(d.gradients.shape(), (camber::Shape{d.shard.x.dim(0), 2, 3}));
  const std::vector<double> got = d.gradients.to_vector();
  for (index_t i = 0; i < d.shard.x.dim(0); ++i)
    for (int o = 0; o < 2; ++o)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(got[static_cast<size_t>((i * 2 + o) * 3 + k)], 100.0 * (d.shard.offset + i) + 10.0 * o + k);
  // A data set without gradients reads none; gradients of the wrong shape
  // are refused.
  write_rows((dir / "plain.h5").string());
  EXPECT_EQ(nn::io::read_dataset((dir / "plain.h5").string(), world()).gradients.size(), 0);
  // dataset_info: the shape without the rows.
  const nn::io::DataSetInfo with = nn::io::dataset_info(path), without = nn::io::dataset_info((dir / "plain.h5").string());
  EXPECT_EQ(with.rows, 9);
  EXPECT_EQ(with.inputs, 3);
  EXPECT_EQ(with.outputs, 2);
  EXPECT_TRUE(with.gradients);
  EXPECT_EQ(without.rows, 10);
  EXPECT_FALSE(without.gradients);
  EXPECT_THROW(nn::io::write_dataset((dir / "bad.h5").string(), Tensor::from_host({r.size(), 3}, x),
                                     Tensor::from_host({r.size(), 2}, y), {{"a", "b", "c"}, {"", "", ""}},
                                     {{"p", "q"}, {"", ""}}, world(), "",
                                     Tensor::from_host({r.size(), 3, 2}, g)),
               camber::Error);
}

TEST(NnDataset, MalformedFilesAreErrorsNamingTheFile) {
  const auto dir = camber::test::scratch_dir("nn_io", "malformed");
  const std::string other = (dir / "other.h5").string();
  {
    camber::io::H5File f(other, camber::io::Mode::create, world());
    f.write_replicated("inputs", Tensor::from_host({2}, {1, 2}));
    f.close();
  }
  try {
    nn::io::read_dataset(other, world());
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("other.h5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a Camber data set"), std::string::npos) << e.what();
  }
  EXPECT_THROW(nn::io::read_dataset((dir / "missing.h5").string(), world()), camber::Error);
  EXPECT_THROW(nn::io::write_dataset((dir / "bad.h5").string(), Tensor({1, 2}), Tensor({1, 1}),
                                 {{"a"}, {""}}, {{"b"}, {""}}, world()),
               camber::Error);  // one name for two columns
}

TEST(NnCheckpoint, RestoresModelOptimizerAndTrainer) {
  const auto dir = camber::test::scratch_dir("nn_io", "checkpoint");
  const std::string path = (dir / "ckpt.h5").string();
  nn::Rng rng(1);
  const auto net = nn::mlp({2, {4}, 1}, rng);
  nn::Adam opt(net->parameters(), {0.01});
  nn::TrainOptions o;
  o.epochs = 2;
  o.batch_size = 4;
  o.progress = false;
  nn::Trainer t(*net, opt, o, world());
  const Tensor x = Tensor::from_host({8, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  const Tensor y = Tensor::from_host({8, 1}, {1, 0, 1, 0, 1, 0, 1, 0});
  t.fit(nn::shard_of(x, y, world()));
  nn::io::save_checkpoint(path, *net, opt, t, world());

  nn::Rng other(9);
  const auto net2 = nn::mlp({2, {4}, 1}, other);
  nn::Adam opt2(net2->parameters(), {0.5});
  nn::Trainer t2(*net2, opt2, o, world());
  nn::io::load_checkpoint(path, *net2, opt2, t2, world());
  for (size_t k = 0; k < net->parameter_values().size(); ++k)
    EXPECT_EQ(net2->parameter_values()[k].to_vector(), net->parameter_values()[k].to_vector());
  EXPECT_EQ(opt2.steps(), opt.steps());
  EXPECT_EQ(opt2.lr(), 0.01);
  EXPECT_EQ(t2.epoch(), 2);
  EXPECT_EQ(t2.rng_state(), t.rng_state());
  EXPECT_EQ(t2.history()[1].train_loss, t.history()[1].train_loss);

  // Another architecture: the first mismatching parameter is named.
  nn::Rng r3(1);
  const auto wider = nn::mlp({2, {5}, 1}, r3);
  nn::Adam opt3(wider->parameters(), {0.01});
  nn::Trainer t3(*wider, opt3, o, world());
  try {
    nn::io::load_checkpoint(path, *wider, opt3, t3, world());
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("0.weight"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ckpt.h5"), std::string::npos) << e.what();
  }
  // Another optimizer.
  nn::Sgd sgd(net2->parameters(), {0.1, 0.9});
  EXPECT_THROW(nn::io::load_checkpoint(path, *net2, sgd, t2, world()), camber::Error);
}

}  // namespace
