// solvers/aero/design_file.hpp: a design written and read back is the one
// written, bit for bit; the reader's errors name the file and line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <camber/core/error.hpp>
#include <camber/solvers/aero/design_file.hpp>

namespace fs = std::filesystem;
namespace aero = camber::solvers::aero;

namespace {

class DesignFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("camber_design_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& text) const {
    const fs::path p = dir_ / "design.csv";
    std::ofstream(p) << text;
    return p.string();
  }
  // The bad-input message of reading `text`.
  std::string error_of(const std::string& text) const {
    try {
      aero::read_design_file(file(text));
    } catch (const camber::Error& e) {
      EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
      return e.message();
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }
  fs::path dir_;
};

TEST_F(DesignFile, ReadsBackWhatWasWrittenBitForBit) {
  aero::DesignFile d;
  d.shape = {1.0 / 3.0, -2.5e-7, 0.0, std::nextafter(1e-3, 1.0)};
  d.alpha_deg = {0.5412345678901234, -1.0 / 7.0};
  const std::string path = (dir_ / "out" / "case_final_design.csv").string();
  aero::write_design_file(path, d);
  const aero::DesignFile back = aero::read_design_file(path);
  EXPECT_EQ(back.shape, d.shape);
  EXPECT_EQ(back.alpha_deg, d.alpha_deg);
}

TEST_F(DesignFile, AlphaRowsAreOptional) {
  const aero::DesignFile d = aero::read_design_file(file("variable,value\n0,0.25\n1,-0.5\n"));
  EXPECT_EQ(d.shape, (std::vector<double>{0.25, -0.5}));
  EXPECT_TRUE(d.alpha_deg.empty());
}

TEST_F(DesignFile, ErrorsNameTheFileAndLine) {
  EXPECT_NE(error_of("x,y\n0,1\n").find("design.csv:1: the header is 'x,y'"), std::string::npos);
  EXPECT_NE(error_of("variable,value\n0,1\n2,3\n").find("design.csv:3: '2,3' is not 'variable,value' with variable 1"),
            std::string::npos);
  EXPECT_NE(error_of("variable,value\n0,abc\n").find("design.csv:2:"), std::string::npos);
  EXPECT_NE(error_of("variable,value\n0,\n").find("design.csv:2:"), std::string::npos);
  EXPECT_NE(error_of("variable,value\n0,nan\n").find("design.csv:2:"), std::string::npos);
  // A shape variable after the alpha rows, and alpha rows out of order.
  EXPECT_NE(error_of("variable,value\n0,1\nalpha_deg_0,2\n1,3\n").find("design.csv:4:"),
            std::string::npos);
  EXPECT_NE(error_of("variable,value\n0,1\nalpha_deg_1,2\n").find("design.csv:3:"),
            std::string::npos);
  EXPECT_NE(error_of("variable,value\n").find("holds no design variables"), std::string::npos);
  EXPECT_NE(error_of("").find("is empty"), std::string::npos);
  try {
    aero::read_design_file((dir_ / "missing.csv").string());
    ADD_FAILURE() << "a missing file was read";
  } catch (const camber::Error& e) {
    EXPECT_NE(e.message().find("missing.csv"), std::string::npos);
  }
}

}  // namespace
