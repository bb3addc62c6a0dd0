// nn/io/evaluation.hpp at 1, 2 and 4 ranks, against closed forms. The data
// set: rows i = 0..9 with inputs (i, 2i + 1), outputs (3 - i, i^2) and
// gradients g I (g = 1 or 2, the identity of 2 x 2); the surrogate: the
// identity map (one linear layer, W = I, b = 0, no normalisation), which
// predicts (i, 2i + 1).
//  - output_rmse over [first, last): sqrt(sum (2i - 3)^2 / n) and
//    sqrt(sum (2i + 1 - i^2)^2 / n), summed here by hand, to 1e-14;
//  - jacobian_relative_error: |I - g I| / |g I|, 0 for g = 1 and 0.5 for
//    g = 2, exactly;
//  - calibrate_int8 on the first 3 rows: the largest |input| is 5 (row 2),
//    so the int8 network is quantize_int8 with the maximum 5, weights and
//    scales equal; on all rows 19;
//  - input_range: [0, 9] x [1, 19];
//  - quantize_model: those calibrations and errors, the card's validation
//    error re-measured on the model's own set (same rows and hash) only;
//  - quantize_file: the file it saves holds quantize_model's network and
//    card; bad paths and rows are bad_input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/evaluation.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/quantize.hpp>
#include <camber/nn/surrogate.hpp>

#include "../mpi_test_utils.hpp"

namespace {

namespace nn = camber::nn;
using camber::index_t;
using camber::Tensor;
using camber::test::world;

std::string write_set(const std::string& name, double g) {
  const auto dir = camber::test::scratch_dir("nn_evaluation", name);
  const std::string path = (dir / "set.h5").string();
  const nn::RowRange r = nn::local_rows(10, world());
  std::vector<double> x, y, grad;
  for (index_t i = r.begin; i < r.end; ++i) {
    x.insert(x.end(), {static_cast<double>(i), 2.0 * i + 1});
    y.insert(y.end(), {3.0 - i, static_cast<double>(i * i)});
    grad.insert(grad.end(), {g, 0.0, 0.0, g});
  }
  nn::io::write_dataset(path, Tensor::from_host({r.size(), 2}, x), Tensor::from_host({r.size(), 2}, y),
                        {{"a", "b"}, {"", ""}}, {{"p", "q"}, {"", ""}}, world(), "",
                        Tensor::from_host({r.size(), 2, 2}, grad));
  return path;
}

nn::Surrogate identity() {
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 2;
  return nn::Surrogate(spec, {Tensor::from_host({2, 2}, {1.0, 0.0, 0.0, 1.0}), Tensor::from_host({2}, {0.0, 0.0})},
                       {{"a", "b"}, {"", ""}}, {{"p", "q"}, {"", ""}}, {{0.0, 0.0}, {1.0, 1.0}},
                       {{0.0, 0.0}, {1.0, 1.0}});
}

TEST(NnEvaluation, OutputRmseIsTheClosedForm) {
  const nn::io::DataSet data = nn::io::read_dataset(write_set("rmse", 1.0), world());
  for (const auto& [first, last] : std::vector<std::pair<index_t, index_t>>{{0, 10}, {8, 10}, {3, 7}}) {
    double s0 = 0.0, s1 = 0.0;
    for (index_t i = first; i < last; ++i) {
      s0 += (2.0 * i - 3.0) * (2.0 * i - 3.0);
      s1 += (2.0 * i + 1.0 - i * i) * (2.0 * i + 1.0 - i * i);
    }
    const double n = static_cast<double>(last - first);
    const std::vector<double> rmse = nn::io::output_rmse(identity(), data, first, last, world());
    ASSERT_EQ(rmse.size(), 2u);
    EXPECT_NEAR(rmse[0], std::sqrt(s0 / n), 1e-14 * std::sqrt(s0 / n)) << first << ".." << last;
    EXPECT_NEAR(rmse[1], std::sqrt(s1 / n), 1e-14 * std::sqrt(s1 / n)) << first << ".." << last;
  }
  EXPECT_EQ(nn::io::output_rmse(identity(), data, 10, 10, world()), (std::vector<double>{0.0, 0.0}));
}

TEST(NnEvaluation, JacobianErrorAgainstTheSetsGradients) {
  const nn::io::DataSet same = nn::io::read_dataset(write_set("jac1", 1.0), world());
  for (double e : nn::io::jacobian_relative_error(identity(), same, 0, 10, world()))
    EXPECT_EQ(e, 0.0);
  const nn::io::DataSet twice = nn::io::read_dataset(write_set("jac2", 2.0), world());
  for (double e : nn::io::jacobian_relative_error(identity(), twice, 5, 10, world()))
    EXPECT_NEAR(e, 0.5, 1e-15);
}

TEST(NnEvaluation, InputRangeIsTheSetsBox) {
  const nn::io::DataSet data = nn::io::read_dataset(write_set("range", 1.0), world());
  const auto [lo, hi] = nn::io::input_range(data, world());
  EXPECT_EQ(lo, (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(hi, (std::vector<double>{9.0, 19.0}));
}

TEST(NnEvaluation, Int8CalibrationTakesTheLargestInputOfTheFirstRows) {
  const nn::io::DataSet data = nn::io::read_dataset(write_set("int8", 1.0), world());
  const nn::Surrogate f = identity();
  for (const auto& [rows, largest] : std::vector<std::pair<index_t, double>>{{3, 5.0}, {0, 19.0}, {50, 19.0}}) {
    const nn::Surrogate q = nn::io::calibrate_int8(f, data, rows, world());
    const nn::Surrogate expected = nn::quantize_int8(f, std::vector<double>{largest});
    ASSERT_TRUE(q.quantized());
    EXPECT_EQ(q.int8_layers()[0].input_scale, expected.int8_layers()[0].input_scale) << rows;
    EXPECT_EQ(q.int8_layers()[0].values, expected.int8_layers()[0].values);
    EXPECT_EQ(q.int8_layers()[0].scales, expected.int8_layers()[0].scales);
  }
}

TEST(NnEvaluation, QuantizeModelRevalidatesOnlyOnItsOwnSet) {
  const std::string path = write_set("quantize", 1.0);
  const nn::io::DataSet data = nn::io::read_dataset(path, world());
  nn::io::Model model{identity(), {}, 1, 0, ""};
  model.card.validation_rows = 2;
  model.card.validation_rmse = {9.0, 9.0};
  model.card.data_rows = 10;
  model.card.data_sha256 = nn::io::sha256_file(path);
  const nn::io::Int8Model q = nn::io::quantize_model(model, data, path, 3, world());
  EXPECT_EQ(q.calibration_rows, 3);
  const nn::Surrogate expected = nn::io::calibrate_int8(identity(), data, 3, world());
  EXPECT_EQ(q.network.int8_layers()[0].input_scale, expected.int8_layers()[0].input_scale);
  EXPECT_EQ(q.float_rmse, nn::io::output_rmse(identity(), data, 0, 10, world()));
  EXPECT_EQ(q.int8_rmse, nn::io::output_rmse(expected, data, 0, 10, world()));
  ASSERT_TRUE(q.revalidated);
  EXPECT_EQ(q.card.validation_rows, 2);
  EXPECT_EQ(q.card.validation_rmse, nn::io::output_rmse(expected, data, 8, 10, world()));

  // Another set (its hash differs): no validation error rather than the
  // float network's.
  model.card.data_sha256 = std::string(64, '0');
  const nn::io::Int8Model other = nn::io::quantize_model(model, data, path, 0, world());
  EXPECT_EQ(other.calibration_rows, 10);
  EXPECT_FALSE(other.revalidated);
  EXPECT_EQ(other.card.validation_rows, 0);
  EXPECT_TRUE(other.card.validation_rmse.empty());

  nn::io::Model int8{q.network, {}, 1, 0, ""};
  EXPECT_THROW(nn::io::quantize_model(int8, data, path, 0, world()), camber::Error);
}

TEST(NnEvaluation, QuantizeFileSavesWhatQuantizeModelMakes) {
  const std::string path = write_set("quantize_file", 1.0);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  nn::io::Model model{identity(), {}, 1, 0, ""};
  model.card.validation_rows = 2;
  model.card.data_rows = 10;
  model.card.data_sha256 = nn::io::sha256_file(path);
  const nn::io::DataSet data = nn::io::read_dataset(path, world());
  const nn::io::Int8Model expected = nn::io::quantize_model(model, data, path, 3, world());
  const nn::io::Int8Model q = nn::io::quantize_file(model, path, dir + "/int8.h5", 3, world());
  EXPECT_EQ(q.set_rows, 10);
  EXPECT_EQ(q.float_rmse, expected.float_rmse);
  EXPECT_EQ(q.int8_rmse, expected.int8_rmse);
  EXPECT_TRUE(q.revalidated);
  const nn::io::Model saved = nn::io::load_model(dir + "/int8.h5");  // every rank reads rank 0's file
  ASSERT_TRUE(saved.surrogate.quantized());
  EXPECT_EQ(saved.surrogate.int8_layers()[0].values, expected.network.int8_layers()[0].values);
  EXPECT_EQ(saved.surrogate.int8_layers()[0].scales, expected.network.int8_layers()[0].scales);
  EXPECT_EQ(saved.surrogate.int8_layers()[0].input_scale, expected.network.int8_layers()[0].input_scale);
  EXPECT_EQ(saved.card.validation_rows, 2);
  EXPECT_EQ(saved.card.validation_rmse, expected.card.validation_rmse);

  // Bad input, on every rank, before anything is read or written.
  for (const auto& [data_path, output, rows, piece] :
       std::vector<std::tuple<std::string, std::string, index_t, std::string>>{
           {dir + "/set.csv", dir + "/q.h5", 0, "must be an .h5 data set"},
           {path, dir + "/q.onnx", 0, "output '" + dir + "/q.onnx' must end in .h5"},
           {path, dir + "/q.h5", -1, "--calibration-rows must be >= 0"},
           {dir + "/missing.h5", dir + "/q.h5", 0, "cannot find data '" + dir + "/missing.h5'"}}) {
    const auto e = camber::test::error_from(
        [&] { nn::io::quantize_file(model, data_path, output, rows, world()); });
    ASSERT_TRUE(e.has_value()) << piece;
    EXPECT_EQ(e->kind(), camber::ErrorKind::bad_input) << e->message();
    EXPECT_NE(e->message().find(piece), std::string::npos) << e->message();
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/q.h5"));
}

}  // namespace
