/// @file
/// A design as a CSV file: what `camber optimize` writes as
/// `<case>_final_design.csv` and what a later run starts from (the deck's
/// design.start), e.g. an optimum found on a coarse grid evaluated or
/// refined on a finer one.
///
/// @code{.unparsed}
///   variable,value
///   0,0.00123          (the shape variables, 0 .. n-1, in order)
///   1,-0.0004
///   alpha_deg_0,0.54   (each operating point's angle of attack, when
///                       the design trims it: lift held)
/// @endcode
///
/// @code
///   aero::DesignFile d{result.final_shape, result.final_alpha_points};
///   aero::write_design_file("out/wing_final_design.csv", d);   // atomically
///   std::vector<double> start = aero::read_design_file("out/wing_final_design.csv").shape;
/// @endcode
///
/// Values are written to 17 significant digits, so a design read back is
/// the one written, bit for bit. Not collective: one rank writes, any reads.
#pragma once

#include <string>
#include <vector>

namespace camber::solvers::aero {

struct DesignFile {
  std::vector<double> shape;      ///< the shape variables, in order
  std::vector<double> alpha_deg;  ///< each point's trimmed alpha (may be empty)
};

/// Writes `design` to `path` atomically (creating its folder).
void write_design_file(const std::string& path, const DesignFile& design);

/// Reads a design file. Bad input (camber::Error) naming the file and line
/// for a missing file, another header, a row that is not the next shape
/// variable or the next `alpha_deg_<i>` with a finite value, or no shape
/// variables.
DesignFile read_design_file(const std::string& path);

}  // namespace camber::solvers::aero
