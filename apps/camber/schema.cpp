#include "schema.hpp"

#include "heat_case.hpp"
#include <camber/deck/reference.hpp>

namespace camber::app {

deck::Schema full_schema() {
  deck::Schema s;
  s.string("case", "case",
           "Case name: output files are <output.dir>/<case>.pvd, <case>.h5. Letters, digits, "
           "'-', '_' and '.' only.");
  s.choice("problem", deck::required, {"heat"},
           "What to solve. heat: steady heat conduction with a manufactured solution "
           "(sections mesh, heat, solver).");
  declare_heat_schema(s);
  s.section("output", "Where and what to write.")
      .string("dir", "out", "Output folder (created if missing), relative to the working directory.")
      .boolean("paraview", true,
               "Write VTK XML for ParaView: <dir>/<case>.pvd, a series of .pvtu files with one "
               ".vtu piece per MPI rank.")
      .boolean("hdf5", true,
               "Write the solution fields to <dir>/<case>.h5 (parallel HDF5), with the deck's "
               "settings as attributes.");
  return s;
}

void validate_case(const deck::Deck& d) {
  const std::string& name = d.string("case");
  if (name.empty()) d.reject("case", "the case name must not be empty");
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok)
      d.reject("case", "the case name '" + name +
                           "' is used in file names; use letters, digits, '-', '_' and '.' only");
  }
  if (name == "." || name == "..") d.reject("case", "'" + name + "' is not a usable file name");
  if (d.string("output.dir").empty()) d.reject("output.dir", "the output folder must not be empty");
}

std::string deck_reference() {
  return deck::reference_markdown(full_schema(), "Camber deck reference");
}

}  // namespace camber::app
