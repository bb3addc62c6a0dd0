#include <algorithm>
#include <sstream>

#include "problem.hpp"
#include <camber/core/error.hpp>
#include <camber/deck/reference.hpp>

namespace camber::app {

namespace {

std::vector<std::string> problem_names() {
  std::vector<std::string> names;
  for (const Problem& p : problems()) names.push_back(p.name);
  return names;
}

void declare_common(deck::Schema& s) {
  s.string("case", "case",
           "Case name: output files are <output.dir>/<case>.pvd, <case>.h5. Letters, digits, "
           "'-', '_' and '.' only.");
  std::string doc = "What to solve; the deck's other sections depend on it.";
  for (const Problem& p : problems()) doc += " " + p.name + ": " + p.summary;
  s.choice("problem", deck::required, problem_names(), doc);
}

void declare_output(deck::Schema& s) {
  s.section("output", "Where and what to write.")
      .string("dir", "out", "Output folder (created if missing), relative to the working directory.")
      .boolean("paraview", true,
               "Write VTK XML for ParaView: <dir>/<case>.pvd, a series of .pvtu files with one "
               ".vtu piece per MPI rank.")
      .boolean("hdf5", true,
               "Write the solution fields to <dir>/<case>.h5 (parallel HDF5), with the deck's "
               "settings as attributes.");
}

// Checks of the common keys that the schema cannot express.
void validate_common(const deck::Deck& d) {
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

}  // namespace

const Problem* find_problem(const std::string& name) {
  const auto& list = problems();
  const auto it =
      std::find_if(list.begin(), list.end(), [&](const Problem& p) { return p.name == name; });
  return it == list.end() ? nullptr : &*it;
}

deck::Schema schema_for(const Problem* problem) {
  deck::Schema s;
  declare_common(s);
  if (problem != nullptr) problem->declare(s);
  declare_output(s);
  return s;
}

deck::Deck load_case_deck(const std::string& path) {
  const std::string text = deck::read_deck_file(path);
  // The problem chooses the schema, so it is checked first, alone: without
  // it the other sections cannot be judged.
  const deck::ScalarAt chosen = deck::top_level_scalar(text, "problem");
  const Problem* problem = find_problem(chosen.value);
  if (chosen.parsed && problem == nullptr) {
    std::string names;
    for (const Problem& p : problems()) names += (names.empty() ? "" : ", ") + p.name;
    if (!chosen.found)
      throw_bad_input(path + ": missing required key 'problem' (one of " + names +
                      "); it decides which sections the deck may have");
    throw_bad_input(CAMBER_MSG(path << ":" << chosen.line << ":" << chosen.column
                                    << ": 'problem' must be one of " << names << "; got '"
                                    << chosen.value << "'"));
  }
  deck::Deck d = deck::parse_deck(text, path, schema_for(problem));
  validate_common(d);
  if (problem != nullptr && problem->validate) problem->validate(d);
  return d;
}

std::string deck_reference() {
  std::ostringstream out;
  out << "# Camber deck reference\n\n"
      << "<!-- Generated from the deck schemas by `camber deck-reference`; do not edit. -->\n\n"
      << "A deck is a YAML mapping. Its `problem:` key chooses what is solved and which "
         "sections the deck may have: each problem below lists every key it reads. Keys "
         "marked *required* have no default; every other key may be left out. Booleans are "
         "`true` or `false`; integers are written without a decimal point; reals are finite; "
         "lists are written `[a, b, c]`. Units are part of key names.\n";
  for (const Problem& p : problems()) {
    // reference_markdown's own title and preamble are replaced by the
    // problem's heading; its sections move one level down.
    const std::string md = deck::reference_markdown(schema_for(&p), p.name);
    const size_t body = md.find("\n## ");
    std::istringstream lines(body == std::string::npos ? std::string() : md.substr(body + 1));
    out << "\n## Problem `" << p.name << "`\n\n" << p.summary << "\n\n";
    std::string line;
    while (std::getline(lines, line)) out << (line.rfind("## ", 0) == 0 ? "#" : "") << line << "\n";
  }
  return out.str();
}

}  // namespace camber::app
