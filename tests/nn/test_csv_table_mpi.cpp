// nn/io/csv_table.hpp: a model's inputs read from CSV (columns in any
// order, units checked, comments and blank lines skipped) and rows written
// from 1, 2 and 4 ranks, in rank order, read back to the last digit; every
// fault is bad input naming the file and line. Names holding commas,
// quotes, brackets or a leading '#' are quoted as RFC 4180 has it, so the
// header has as many fields as every row, and read back.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/io/csv_table.hpp>

#include "../mpi_test_utils.hpp"

namespace {

namespace nn = camber::nn;
namespace fs = std::filesystem;
using camber::index_t;
using camber::Tensor;
using camber::test::world;

const nn::Columns inputs{{"mach", "alpha_deg"}, {"", "deg"}};
const nn::Columns outputs{{"CL"}, {""}};

TEST(CsvTable, ColumnsInAnyOrderWithUnitsAndComments) {
  const fs::path dir = camber::test::scratch_dir("nn_csv", "read");
  if (camber::test::rank() == 0)
    camber::write_file_atomically(dir / "in.csv",
                                  "# points\nalpha_deg [deg], mach\n\n1.5, 0.3\n# more\n-2,0.7e0\n");
  MPI_Barrier(world());
  const Tensor x = nn::io::read_input_csv((dir / "in.csv").string(), inputs);
  ASSERT_EQ(x.dim(0), 2);
  EXPECT_EQ(x.to_vector(), (std::vector<double>{0.3, 1.5, 0.7, -2.0}));
}

void expect_fault(const std::string& text, const std::string& piece) {
  const fs::path dir = camber::test::scratch_dir("nn_csv", "fault");
  if (camber::test::rank() == 0) camber::write_file_atomically(dir / "bad.csv", text);
  MPI_Barrier(world());
  try {
    nn::io::read_input_csv((dir / "bad.csv").string(), inputs);
    FAIL() << "accepted:\n" << text;
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(e.message().find(piece), std::string::npos) << e.message();
  }
  MPI_Barrier(world());  // every rank has read it before the next one replaces it
}

TEST(CsvTable, FaultsNameTheFileAndLine) {
  expect_fault("mach,beta\n", "bad.csv:1: column 'beta' is not an input of the model (mach, alpha_deg)");
  expect_fault("mach,mach,alpha_deg\n", "bad.csv:1: column 'mach' appears twice");
  expect_fault("mach\n", "bad.csv:1: no column 'alpha_deg'");
  expect_fault("mach,alpha_deg [rad]\n", "bad.csv:1: column 'alpha_deg' in 'rad', the model's unit is 'deg'");
  expect_fault("mach,alpha_deg\n0.3,1\n0.4\n", "bad.csv:3: 1 values, the header has 2");
  expect_fault("mach,alpha_deg\n0.3,nan\n", "bad.csv:2: 'nan' in column 'alpha_deg' is not a finite number");
  expect_fault("# nothing\n", "bad.csv: empty");
}

TEST(CsvTable, RowsOfEveryRankRoundTrip) {
  const fs::path dir = camber::test::scratch_dir("nn_csv", "write");
  const nn::RowRange r = nn::local_rows(7, world());
  std::vector<double> x, y;
  for (index_t i = r.begin; i < r.end; ++i) {
    x.insert(x.end(), {0.1 * static_cast<double>(i) + 1.0 / 3.0, -static_cast<double>(i)});
    y.push_back(1.0 / (1.0 + static_cast<double>(i)));
  }
  const std::string path = (dir / "out.csv").string();
  nn::io::write_rows_csv(path, Tensor::from_host({r.size(), 2}, x), Tensor::from_host({r.size(), 1}, y),
                         inputs, outputs, world());
  if (camber::test::rank() != 0) return;
  EXPECT_EQ(camber::test::read_text(path).substr(0, 25), "mach,alpha_deg [deg],CL\n0");
  const Tensor back = nn::io::read_input_csv(path, {{"mach", "alpha_deg", "CL"}, {"", "deg", ""}});
  const std::vector<double> v = back.to_vector();
  ASSERT_EQ(back.dim(0), 7);
  for (index_t i = 0; i < 7; ++i) {
    EXPECT_EQ(v[static_cast<size_t>(3 * i)], 0.1 * static_cast<double>(i) + 1.0 / 3.0);
    EXPECT_EQ(v[static_cast<size_t>(3 * i + 1)], -static_cast<double>(i));
    EXPECT_EQ(v[static_cast<size_t>(3 * i + 2)], 1.0 / (1.0 + static_cast<double>(i)));
  }
}

// Each header field of the file, split by hand as RFC 4180 reads it: the
// count of fields is the count of commas outside quotes, plus one.
std::size_t fields_of(const std::string& line) {
  std::size_t n = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++n;
  }
  return n;
}

TEST(CsvTable, NamesWithCommasAndQuotesAreQuoted) {
  const fs::path dir = camber::test::scratch_dir("nn_csv", "quoted");
  const nn::Columns in{{"mach, free stream", "x[1]", "#alpha"}, {"", "m", "deg"}};
  const nn::Columns out{{"CL \"wing\"", "CD,total"}, {"", ""}};
  const std::string path = (dir / "quoted.csv").string();
  const nn::RowRange r = nn::local_rows(3, world());
  std::vector<double> x, y;
  for (index_t i = r.begin; i < r.end; ++i) {
    x.insert(x.end(), {0.5 + static_cast<double>(i), 2.0, -1.0});
    y.insert(y.end(), {0.25, static_cast<double>(i)});
  }
  nn::io::write_rows_csv(path, Tensor::from_host({r.size(), 3}, x), Tensor::from_host({r.size(), 2}, y),
                         in, out, world());
  if (camber::test::rank() != 0) return;
  const std::string text = camber::test::read_text(path);
  const std::string header = text.substr(0, text.find('\n'));
  EXPECT_EQ(header, "\"mach, free stream\",x[1] [m],\"#alpha [deg]\",\"CL \"\"wing\"\"\",\"CD,total\"");
  const std::string row = text.substr(header.size() + 1, text.find('\n', header.size() + 1) - header.size() - 1);
  EXPECT_EQ(fields_of(header), 5u);
  EXPECT_EQ(fields_of(row), 5u) << row;
  const Tensor back = nn::io::read_input_csv(
      path, {{"CD,total", "mach, free stream", "#alpha", "x[1]", "CL \"wing\""}, {"", "", "deg", "m", ""}});
  ASSERT_EQ(back.dim(0), 3);
  EXPECT_EQ(back.to_vector()[0], 0.0);   // CD,total of row 0
  EXPECT_EQ(back.to_vector()[1], 0.5);   // mach of row 0
  EXPECT_EQ(back.to_vector()[3], 2.0);   // x[1]
  EXPECT_EQ(back.to_vector()[4], 0.25);  // CL "wing"
}

TEST(CsvTable, AnOpenQuoteIsAFault) {
  expect_fault("\"mach,alpha_deg\n", "bad.csv:1: a quoted field is not closed");
  expect_fault("\"mach\"x,alpha_deg\n", "bad.csv:1: text after the closing quote of 'mach'");
}

}  // namespace
