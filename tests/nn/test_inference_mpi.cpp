// nn/io/inference.hpp at 1, 2 and 4 ranks: infer_file on a small network
// (2 inputs, a hidden layer of 6, 2 outputs, normalised) and 13 rows,
// 3 rows per predict call, so that the ranks' blocks and the batches are
// uneven. The test predicts all 13 rows itself with Surrogate::predict:
//  - the written file (.csv read back as text, .h5 read back as a data
//    set) holds the inputs exactly and those predictions to 1e-14 (the
//    batches multiply fewer rows at a time; the CSV's 17 digits round-trip);
//  - the RMSE against a data set's outputs is sqrt(mean (p - y)^2) summed
//    here over the 13 rows, to 1e-13 relative; a CSV input, or a set
//    without the model's outputs, has none;
//  - every bad input (extensions, batch, missing file, a set with other
//    inputs, a CSV without a column) is bad_input on every rank;
//  - with a training range in the card that leaves out the last row (the
//    last rank's), a data set and a CSV are refused on every rank naming
//    row 12, its input, value and the range, and nothing is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/init.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/inference.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/surrogate.hpp>

#include "../mpi_test_utils.hpp"

namespace {

namespace nn = camber::nn;
namespace fs = std::filesystem;
using camber::index_t;
using camber::Tensor;
using camber::test::world;

constexpr index_t kRows = 13;
const nn::Columns inputs{{"mach", "alpha_deg"}, {"", "deg"}};
const nn::Columns outputs{{"CL", "CD"}, {"", ""}};

nn::io::Model model() {
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 2;
  spec.hidden = {6};
  nn::Rng rng(7);
  auto net = nn::make_network(spec, rng);
  nn::Surrogate s(spec, net->parameter_values(), inputs, outputs, {{0.5, 1.0}, {0.1, 2.0}},
                  {{0.3, 0.02}, {0.2, 0.01}});
  return nn::io::Model{s, {}, 1, 0, ""};
}

// Row i: mach 0.3 + i/40, alpha -4 + 0.7 i (deg); outputs (i/10, i^2/100).
std::vector<double> all_inputs() {
  std::vector<double> x;
  for (index_t i = 0; i < kRows; ++i)
    x.insert(x.end(), {0.3 + static_cast<double>(i) / 40.0, -4.0 + 0.7 * static_cast<double>(i)});
  return x;
}
std::vector<double> all_outputs() {
  std::vector<double> y;
  for (index_t i = 0; i < kRows; ++i)
    y.insert(y.end(), {static_cast<double>(i) / 10.0, static_cast<double>(i * i) / 100.0});
  return y;
}

// This rank's rows of a {kRows, 2} row-major table.
Tensor local_part(const std::vector<double>& all) {
  const nn::RowRange r = nn::local_rows(kRows, world());
  return Tensor::from_host({r.size(), 2}, std::vector<double>(all.begin() + 2 * r.begin, all.begin() + 2 * r.end));
}

std::string write_set(const fs::path& dir, const std::string& file, const nn::Columns& in,
                      const nn::Columns& out) {
  const std::string path = (dir / file).string();
  nn::io::write_dataset(path, local_part(all_inputs()), local_part(all_outputs()), in, out, world());
  return path;
}

std::string write_csv(const fs::path& dir, const std::string& header) {
  const std::vector<double> x = all_inputs();
  std::ostringstream text;
  text.precision(17);
  text << header << "\n";
  for (index_t i = 0; i < kRows; ++i) text << x[2 * i + 1] << ", " << x[2 * i] << "\n";  // alpha, mach
  if (camber::test::rank() == 0) camber::write_file_atomically(dir / "in.csv", text.str());
  MPI_Barrier(world());
  return (dir / "in.csv").string();
}

// The model's predictions for all rows, in one call.
std::vector<double> expected_predictions(const nn::io::Model& m) {
  return m.surrogate.predict(Tensor::from_host({kRows, 2}, all_inputs())).to_vector();
}

void expect_close(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-14 * std::max(1.0, std::abs(want))) << what;
}

// The written .h5: every rank's rows, inputs exact, outputs the predictions.
void expect_h5_output(const std::string& path, const std::vector<double>& p) {
  const nn::io::DataSet d = nn::io::read_dataset(path, world());
  EXPECT_EQ(d.shard.global_rows, kRows);
  EXPECT_EQ(d.inputs.names, inputs.names);
  EXPECT_EQ(d.inputs.units, inputs.units);
  EXPECT_EQ(d.outputs.names, outputs.names);
  const std::vector<double> x = d.shard.x.to_vector(), y = d.shard.y.to_vector(), all = all_inputs();
  const index_t off = d.shard.offset;
  for (size_t k = 0; k < x.size(); ++k) EXPECT_EQ(x[k], all[2 * static_cast<size_t>(off) + k]);
  for (size_t k = 0; k < y.size(); ++k)
    expect_close(y[k], p[2 * static_cast<size_t>(off) + k], "h5 value " + std::to_string(k));
}

// The written .csv (rank 0 reads it): mach, alpha_deg, CL, CD per row.
void expect_csv_output(const std::string& path, const std::vector<double>& p) {
  if (camber::test::rank() != 0) return;
  EXPECT_EQ(camber::test::read_text(path).substr(0, 27), "mach,alpha_deg [deg],CL,CD\n");
  const auto rows = camber::test::read_csv_rows(path);
  const std::vector<double> x = all_inputs();
  ASSERT_EQ(rows.size(), static_cast<size_t>(kRows));
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 4u);
    EXPECT_EQ(rows[i][0], x[2 * i]);
    EXPECT_EQ(rows[i][1], x[2 * i + 1]);
    expect_close(rows[i][2], p[2 * i], "csv row " + std::to_string(i));
    expect_close(rows[i][3], p[2 * i + 1], "csv row " + std::to_string(i));
  }
}

TEST(NnInference, DataSetInEveryFormatOutWithTheRmse) {
  const fs::path dir = camber::test::scratch_dir("nn_inference", "dataset");
  const nn::io::Model m = model();
  const std::string set = write_set(dir, "set.h5", inputs, outputs);
  const std::vector<double> p = expected_predictions(m), y = all_outputs();
  double sq[2] = {0.0, 0.0};
  for (index_t i = 0; i < kRows; ++i)
    for (int k = 0; k < 2; ++k) sq[k] += (p[2 * i + k] - y[2 * i + k]) * (p[2 * i + k] - y[2 * i + k]);
  for (const std::string out : {"out.h5", "out.csv"}) {
    index_t read_rows = -1;
    bool predicted_before_written = false;
    nn::io::InferenceHooks hooks;
    hooks.read = [&](index_t rows) { read_rows = rows; };
    hooks.predicted = [&](const nn::io::InferenceResult& r) {
      predicted_before_written = !fs::exists(dir / out) && r.rows == kRows;
    };
    const nn::io::InferenceResult r =
        nn::io::infer_file(m, set, (dir / out).string(), 3, world(), hooks);
    EXPECT_EQ(read_rows, kRows);
    if (camber::test::rank() == 0) {
      EXPECT_TRUE(predicted_before_written);
    }
    EXPECT_EQ(r.rows, kRows);
    EXPECT_GE(r.seconds, 0.0);
    ASSERT_EQ(r.rmse.size(), 2u);
    for (int k = 0; k < 2; ++k) {
      const double want = std::sqrt(sq[k] / static_cast<double>(kRows));
      EXPECT_NEAR(r.rmse[k], want, 1e-13 * want) << out << " output " << k;
    }
    EXPECT_TRUE(camber::test::same_on_every_rank(r.rmse));
    if (out == "out.h5")
      expect_h5_output((dir / out).string(), p);
    else
      expect_csv_output((dir / out).string(), p);
  }
}

TEST(NnInference, CsvInEveryFormatOutWithoutRmse) {
  const fs::path dir = camber::test::scratch_dir("nn_inference", "csv");
  const nn::io::Model m = model();
  const std::string csv = write_csv(dir, "alpha_deg [deg], mach");
  const std::vector<double> p = expected_predictions(m);
  const nn::io::InferenceResult h5 = nn::io::infer_file(m, csv, (dir / "out.h5").string(), 4, world());
  EXPECT_EQ(h5.rows, kRows);
  EXPECT_TRUE(h5.rmse.empty());
  expect_h5_output((dir / "out.h5").string(), p);
  // One batch larger than the file, and an upper-case extension.
  const nn::io::InferenceResult c = nn::io::infer_file(m, csv, (dir / "out.CSV").string(), 100, world());
  EXPECT_EQ(c.rows, kRows);
  expect_csv_output((dir / "out.CSV").string(), p);
}

TEST(NnInference, ASetWithoutTheModelsOutputsHasNoRmse) {
  const fs::path dir = camber::test::scratch_dir("nn_inference", "other_outputs");
  const std::string set = write_set(dir, "set.h5", inputs, {{"p", "q"}, {"", ""}});
  const nn::io::InferenceResult r = nn::io::infer_file(model(), set, (dir / "out.h5").string(), 5, world());
  EXPECT_EQ(r.rows, kRows);
  EXPECT_TRUE(r.rmse.empty());
  expect_h5_output((dir / "out.h5").string(), expected_predictions(model()));
}

// infer_file's error: bad_input on every rank, its message holding `piece`.
void expect_bad_input(const std::string& input, const std::string& output, index_t batch,
                      const std::string& piece, const nn::io::Model& m = model()) {
  const auto e = camber::test::error_from([&] { nn::io::infer_file(m, input, output, batch, world()); });
  ASSERT_TRUE(e.has_value()) << input << " -> " << output << " accepted";
  EXPECT_EQ(e->kind(), camber::ErrorKind::bad_input) << e->message();
  EXPECT_NE(e->message().find(piece), std::string::npos) << e->message();
  EXPECT_FALSE(fs::exists(output)) << output;
  MPI_Barrier(world());
}

TEST(NnInference, BadInputIsRefusedOnEveryRank) {
  const fs::path dir = camber::test::scratch_dir("nn_inference", "bad");
  const std::string set = write_set(dir, "set.h5", inputs, outputs);
  const std::string out = (dir / "out.csv").string();
  expect_bad_input((dir / "in.txt").string(), out, 4, "input '" + (dir / "in.txt").string() + "' must be .csv or .h5");
  expect_bad_input(set, (dir / "out.json").string(), 4, "output '" + (dir / "out.json").string() + "' must be .csv or .h5");
  expect_bad_input(set, out, 0, "--batch must be positive, got 0");
  expect_bad_input(set, out, -3, "--batch must be positive, got -3");
  expect_bad_input((dir / "missing.h5").string(), out, 4, "cannot find input '" + (dir / "missing.h5").string() + "'");
  const std::string other = write_set(dir, "other.h5", {{"mach", "beta"}, {"", "deg"}}, outputs);
  expect_bad_input(other, out, 4, "its inputs are not the model's (names and units, in order)");
  const std::string units = write_set(dir, "units.h5", {{"mach", "alpha_deg"}, {"", "rad"}}, outputs);
  expect_bad_input(units, out, 4, "its inputs are not the model's");
  const std::string csv = write_csv(dir, "mach");
  expect_bad_input(csv, out, 4, "in.csv:1: no column 'alpha_deg'");
  // The checks alone, before any model is loaded.
  const auto e = camber::test::error_from(
      [&] { nn::io::check_inference_files(set, (dir / "out.txt").string(), 4, world()); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), camber::ErrorKind::bad_input);
  EXPECT_FALSE(camber::test::error_from([&] { nn::io::check_inference_files(set, out, 1, world()); }));
}

TEST(NnInference, ARowOutsideTheTrainingRangeIsRefusedByItsRowOnEveryRank) {
  const fs::path dir = camber::test::scratch_dir("nn_inference", "range");
  // Rows 0 to 11 have mach <= 0.575, alpha_deg <= 3.7; row 12 has mach 0.6.
  nn::io::Model m = model();
  m.card.input_min = {0.3, -4.0};
  m.card.input_max = {0.58, 3.75};
  const std::string set = write_set(dir, "set.h5", inputs, outputs);
  const std::string csv = write_csv(dir, "alpha_deg [deg], mach");
  const std::string refused = "row 12: input 'mach' = 0.6 is outside the training range [0.3, 0.58] of the model";
  expect_bad_input(set, (dir / "out.csv").string(), 3, set + ": " + refused, m);
  expect_bad_input(csv, (dir / "out.h5").string(), 3, csv + ": " + refused, m);
  // The policy allow lets the same rows through.
  m.card.extrapolation = nn::io::Extrapolation::allow;
  EXPECT_EQ(nn::io::infer_file(m, set, (dir / "allowed.csv").string(), 3, world()).rows, kRows);
}

}  // namespace
