#include <camber/solvers/aero/design_file.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>

namespace camber::solvers::aero {

namespace {

const char* const header = "variable,value";
const char* const alpha_prefix = "alpha_deg_";

}  // namespace

void write_design_file(const std::string& path, const DesignFile& design) {
  std::ostringstream out;
  out << header << '\n' << std::setprecision(17);
  for (size_t k = 0; k < design.shape.size(); ++k) out << k << ',' << design.shape[k] << '\n';
  for (size_t i = 0; i < design.alpha_deg.size(); ++i)
    out << alpha_prefix << i << ',' << design.alpha_deg[i] << '\n';
  write_file_atomically(path, out.str());
}

DesignFile read_design_file(const std::string& path) {
  std::ifstream in(path);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot open the design file '" << path << "'");
  DesignFile d;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number == 1) {
      CAMBER_INPUT_REQUIRE(line == header, path << ":1: the header is '" << line << "'; expected '"
                                                << header << "' (a <case>_final_design.csv)");
      continue;
    }
    if (line.empty()) continue;
    const bool alpha = line.rfind(alpha_prefix, 0) == 0;
    // The row's expected name: the next shape variable, or (once the
    // alpha rows have begun) the next alpha_deg_<i>.
    const std::string expected =
        alpha ? alpha_prefix + std::to_string(d.alpha_deg.size()) : std::to_string(d.shape.size());
    const auto comma = line.find(',');
    char* end = nullptr;
    const double value =
        comma == std::string::npos ? 0.0 : std::strtod(line.c_str() + comma + 1, &end);
    CAMBER_INPUT_REQUIRE(comma != std::string::npos && line.substr(0, comma) == expected &&
                             end != line.c_str() + comma + 1 && *end == '\0' &&
                             std::isfinite(value) && (alpha || d.alpha_deg.empty()),
                         path << ":" << number << ": '" << line
                              << "' is not 'variable,value' with variable " << expected);
    (alpha ? d.alpha_deg : d.shape).push_back(value);
  }
  CAMBER_INPUT_REQUIRE(number > 0, path << " is empty; expected '" << header << "'");
  CAMBER_INPUT_REQUIRE(!d.shape.empty(), "'" << path << "' holds no design variables");
  return d;
}

}  // namespace camber::solvers::aero
