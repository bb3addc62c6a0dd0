// Tests for camber::io::run_gnuplot: a script over a CSV makes a PNG (its
// file signature checked), a failing script and a missing gnuplot are
// warnings that return false, and a path with a quote in it survives the
// shell. gnuplot-nox is installed by scripts/setup-debian.sh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <camber/core/atomic_file.hpp>
#include <camber/io/gnuplot.hpp>

namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("camber_gnuplot_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool is_png(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, 8);
  return in && std::string(head + 1, 3) == "PNG" && static_cast<unsigned char>(head[0]) == 0x89;
}

std::string plot_script(const fs::path& dir) {
  return "set terminal pngcairo size 300,200 noenhanced\nset datafile separator ','\n"
         "set output '" + (dir / "line.png").string() + "'\n"
         "plot '" + (dir / "line.csv").string() + "' using 1:2 with lines\n";
}

TEST(Gnuplot, AScriptOverACsvMakesAPng) {
  ASSERT_TRUE(camber::io::gnuplot_available()) << "gnuplot-nox is not installed";
  const fs::path dir = scratch("png");
  camber::write_file_atomically(dir / "line.csv", "0,0\n1,1\n2,4\n");
  EXPECT_TRUE(camber::io::run_gnuplot((dir / "line.gp").string(), plot_script(dir)));
  EXPECT_TRUE(is_png(dir / "line.png"));
  EXPECT_TRUE(fs::exists(dir / "line.gp"));
  fs::remove_all(dir);
}

TEST(Gnuplot, AQuoteInThePathReachesGnuplotIntact) {
  ASSERT_TRUE(camber::io::gnuplot_available());
  const fs::path dir = scratch("it's");
  camber::write_file_atomically(dir / "line.csv", "0,0\n1,1\n");
  // The script itself names files without the quote's escape problem by
  // plotting inline data.
  const std::string script = "set terminal pngcairo size 300,200\nset output 'plain.png'\n"
                             "plot '-' with lines\n0 0\n1 1\ne\n";
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  EXPECT_TRUE(camber::io::run_gnuplot((dir / "plot.gp").string(), script));
  fs::current_path(cwd);
  EXPECT_TRUE(is_png(dir / "plain.png"));
  fs::remove_all(dir);
}

TEST(Gnuplot, AFailingScriptReturnsFalseAndKeepsItsMessages) {
  ASSERT_TRUE(camber::io::gnuplot_available());
  const fs::path dir = scratch("fail");
  EXPECT_FALSE(camber::io::run_gnuplot((dir / "bad.gp").string(),
                                       "plot '" + (dir / "absent.csv").string() + "' using 1:2\n"));
  std::ifstream log(dir / "bad.gp.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("absent.csv"), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(Gnuplot, WithoutGnuplotOnThePathNothingRuns) {
  const fs::path dir = scratch("nopath");
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", dir.c_str(), 1);
  const bool available = camber::io::gnuplot_available();
  const bool ran = camber::io::run_gnuplot((dir / "x.gp").string(), "plot x\n");
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_FALSE(available);
  EXPECT_FALSE(ran);
  EXPECT_FALSE(fs::exists(dir / "x.gp"));
  fs::remove_all(dir);
}

}  // namespace
