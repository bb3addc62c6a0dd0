// Tests for camber::deck: schema declaration, validation of YAML decks with
// file:line:col messages, typed access with defaults, and the generated
// reference. Line and column numbers expected below are counted by hand from
// the YAML text next to them (numbered in the comments, columns 1-based).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <camber/deck/deck.hpp>
#include "src/deck/detail/text.hpp"
#include <camber/deck/reference.hpp>
#include <camber/deck/schema.hpp>
#include <camber/core/error.hpp>

namespace {

using camber::deck::Deck;
using camber::deck::IntRange;
using camber::deck::Length;
using camber::deck::Range;
using camber::deck::Schema;
using camber::deck::parse_deck;
using camber::deck::required;

#define EXPECT_CONTAINS(text, piece)                                                   \
  EXPECT_NE(std::string(text).find(piece), std::string::npos)                          \
      << "expected to find:\n  " << (piece) << "\nin:\n" << (text)

#define EXPECT_LACKS(text, piece)                                                      \
  EXPECT_EQ(std::string(text).find(piece), std::string::npos)                          \
      << "expected not to find:\n  " << (piece) << "\nin:\n" << (text)

Schema plate_schema() {
  Schema s;
  s.string("case", "unnamed", "Case name, used in output file names.");
  s.section("mesh", "The computational mesh.")
      .integer("cells_x", 64, {2, 1 << 20}, "Cells along x.")
      .integer("cells_y", 32, {2, 1 << 20}, "Cells along y.")
      .real("length_x_m", 1.0, Range::positive(), "Domain length along x, in metres.")
      .choice("element", "quad", {"quad", "tri"}, "Cell shape.")
      .reals("origin_m", {0.0, 0.0}, Length::exactly(2), Range(), "Lower-left corner, in metres.");
  s.section("flow", "Free-stream conditions.")
      .real("mach", required, Range::greater_than(0.0).and_at_most(5.0), "Free-stream Mach number.")
      .real("alpha_deg", 0.0, {-90.0, 90.0}, "Angle of attack, in degrees.")
      .boolean("viscous", false, "Solve the Navier-Stokes equations.");
  s.section("design", "Shape parametrization.")
      .integers("ffd_points", {12, 2}, Length::exactly(2), IntRange::at_least(2),
                "FFD control points per direction.")
      .reals("weights", {}, Length::any(), Range::non_negative(), "Objective weights.");
  s.section("solver", "Nonlinear solver.")
      .section("linear", "Inner Krylov solver.")
      .real("rel_tolerance", 1e-6, Range::greater_than(0.0).and_less_than(1.0),
            "Relative tolerance | of the Krylov solve.")
      .integer("max_iterations", 200, IntRange::positive(), "Iteration limit.");
  return s;
}

// Parses `text` as plate.yaml, expects a bad-input error and returns its
// message ("" and a test failure if the deck was accepted).
std::string input_error(const std::string& text, const Schema& schema = plate_schema()) {
  try {
    parse_deck(text, "plate.yaml", schema);
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
    EXPECT_EQ(e.exit_code(), 2);
    return e.message();
  }
  ADD_FAILURE() << "deck was accepted:\n" << text;
  return "";
}

// Runs `f`, expects a failure-kind (programming) error, returns its message.
template <class F>
std::string programming_error(F&& f) {
  try {
    f();
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::failure) << e.what();
    return e.message();
  }
  ADD_FAILURE() << "no error raised";
  return "";
}

// A file under the system temp directory, removed at scope exit.
struct TempFile {
  explicit TempFile(const std::string& contents) {
    path = (std::filesystem::temp_directory_path() /
            ("camber_test_deck_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter++) + ".yaml"))
               .string();
    std::ofstream(path) << contents;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
  static inline int counter = 0;
};

// ------------------------------------------------------------ valid decks

TEST(Deck, ValidDeckAppliesDefaults) {
  const std::string text =
      "case: plate\n"                        // 1
      "mesh:\n"                              // 2
      "  cells_x: 10\n"                      // 3  value at column 12
      "  length_x_m: 2\n"                    // 4  an integer is a valid real
      "  origin_m: [-1.5, 0.25]\n"           // 5
      "flow: {mach: 0.8, viscous: true}\n"   // 6  mach's value at column 14
      "design:\n"                            // 7
      "  ffd_points: [8, 3]\n";              // 8
  const Deck deck = parse_deck(text, "plate.yaml", plate_schema());

  EXPECT_EQ(deck.string("case"), "plate");
  EXPECT_EQ(deck.integer("mesh.cells_x"), 10);
  EXPECT_EQ(deck.integer("mesh.cells_y"), 32);
  EXPECT_EQ(deck.real("mesh.length_x_m"), 2.0);
  EXPECT_EQ(deck.string("mesh.element"), "quad");
  EXPECT_EQ(deck.reals("mesh.origin_m"), (std::vector<double>{-1.5, 0.25}));
  EXPECT_EQ(deck.real("flow.mach"), 0.8);
  EXPECT_EQ(deck.real("flow.alpha_deg"), 0.0);
  EXPECT_TRUE(deck.boolean("flow.viscous"));
  EXPECT_EQ(deck.integers("design.ffd_points"), (std::vector<std::int64_t>{8, 3}));
  EXPECT_TRUE(deck.reals("design.weights").empty());
  EXPECT_EQ(deck.real("solver.linear.rel_tolerance"), 1e-6);
  EXPECT_EQ(deck.integer("solver.linear.max_iterations"), 200);

  EXPECT_TRUE(deck.has("mesh.cells_x"));
  EXPECT_FALSE(deck.has("mesh.cells_y"));
  EXPECT_TRUE(deck.has("mesh"));
  EXPECT_FALSE(deck.has("solver"));
  EXPECT_FALSE(deck.has("solver.linear"));

  EXPECT_EQ(deck.where("mesh.cells_x"), "plate.yaml:3:12");
  EXPECT_EQ(deck.where("flow.mach"), "plate.yaml:6:14");
  EXPECT_EQ(deck.where("mesh"), "plate.yaml:2:1");
  EXPECT_EQ(deck.where("mesh.cells_y"), "plate.yaml (default)");
  EXPECT_EQ(deck.source(), "plate.yaml");

  EXPECT_EQ(deck.text("mesh.origin_m"), "[-1.5, 0.25]");
  EXPECT_EQ(deck.text("mesh.length_x_m"), "2.0");
  EXPECT_EQ(deck.text("design.ffd_points"), "[8, 3]");

  const std::vector<std::string> keys = deck.keys();
  ASSERT_EQ(keys.size(), 13u);
  EXPECT_EQ(keys.front(), "case");
  EXPECT_EQ(keys[1], "mesh.cells_x");
  EXPECT_EQ(keys.back(), "solver.linear.max_iterations");
}

TEST(Deck, ARejecterRejectsTheMemberAtItsKeyInTheSection) {
  const Deck deck = parse_deck("flow: {mach: 1}\nmesh:\n  cells_x: 6\n", "plate.yaml", plate_schema());
  const auto reject = deck.rejecter("mesh");
  try {
    reject("cells_x", "must be even");
    ADD_FAILURE() << "no error raised";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_EQ(e.message(), "plate.yaml:3:12: 'mesh.cells_x' = 6: must be even");
  }
}

TEST(Deck, PathsItNamesAreRelativeToItsFolder) {
  const Deck nested = parse_deck("flow: {mach: 1}\n", "cases/m6/plate.yaml", plate_schema());
  EXPECT_EQ(camber::deck::deck_relative_path(nested, "wing.su2"), "cases/m6/wing.su2");
  EXPECT_EQ(camber::deck::deck_relative_path(nested, "../data/wing.su2"), "cases/data/wing.su2");
  EXPECT_EQ(camber::deck::deck_relative_path(nested, "/meshes/wing.su2"), "/meshes/wing.su2");
  const Deck here = parse_deck("flow: {mach: 1}\n", "plate.yaml", plate_schema());
  EXPECT_EQ(camber::deck::deck_relative_path(here, "wing.su2"), "wing.su2");
}

TEST(Deck, EmptySectionAndOmittedSectionsUseDefaults) {
  const Deck deck = parse_deck("flow: {mach: 5}\nmesh:\n", "plate.yaml", plate_schema());
  EXPECT_TRUE(deck.has("mesh"));
  EXPECT_EQ(deck.integer("mesh.cells_x"), 64);
  EXPECT_EQ(deck.real("flow.mach"), 5.0);  // the upper bound is inclusive
  EXPECT_EQ(deck.string("case"), "unnamed");
  EXPECT_EQ(deck.integers("design.ffd_points"), (std::vector<std::int64_t>{12, 2}));
}

TEST(Deck, StringKeysTakePlainScalarsAsText) {
  const Deck deck = parse_deck("case: 2024\nflow: {mach: 1}\n", "plate.yaml", plate_schema());
  EXPECT_EQ(deck.string("case"), "2024");
}

TEST(Deck, IntegerKeysHold64Bits) {
  Schema s;
  s.integer("seed", 0, IntRange::all(), "Random seed.");
  const Deck deck = parse_deck("seed: -9000000000000000000\n", "d.yaml", s);
  EXPECT_EQ(deck.integer("seed"), -9000000000000000000LL);
}

// ------------------------------------------------------------ unknown keys

TEST(DeckErrors, UnknownKeySuggestsNearest) {
  const std::string msg = input_error(
      "case: plate\n"          // 1
      "mesh:\n"                // 2
      "  cells_x: 10\n"        // 3
      "  cels_y: 10\n"         // 4
      "flow: {mach: 0.8}\n");  // 5
  EXPECT_CONTAINS(msg, "plate.yaml:4:3: unknown key 'mesh.cels_y'; did you mean 'cells_y'?");
  EXPECT_CONTAINS(msg, "Valid keys in 'mesh': cells_x, cells_y, length_x_m, element, origin_m");
}

TEST(DeckErrors, UnknownKeySuggestsTransposition) {
  const std::string msg = input_error(
      "flow:\n"           // 1
      "  mahc: 0.8\n");   // 2
  EXPECT_CONTAINS(msg, "plate.yaml:2:3: unknown key 'flow.mahc'; did you mean 'mach'?");
  // The misspelt key leaves the required one missing: both are reported.
  EXPECT_CONTAINS(msg, "plate.yaml:1:1: missing required key 'flow.mach' in section 'flow'");
}

TEST(DeckErrors, UnknownKeyFarFromAllListsValidKeys) {
  const std::string msg = input_error("flow: {mach: 0.8, reynolds: 1e6}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:19: unknown key 'flow.reynolds'");
  EXPECT_CONTAINS(msg, "Valid keys in 'flow': mach, alpha_deg, viscous");
  EXPECT_LACKS(msg, "did you mean");
}

TEST(DeckErrors, UnknownTopLevelKey) {
  const std::string msg = input_error(
      "case: x\n"             // 1
      "msh:\n"                // 2
      "  cells_x: 4\n"        // 3
      "flow: {mach: 1}\n");   // 4
  EXPECT_CONTAINS(msg, "plate.yaml:2:1: unknown key 'msh'; did you mean 'mesh'?");
  EXPECT_CONTAINS(msg, "Valid top-level keys: case, mesh, flow, design, solver");
}

TEST(DeckErrors, KeyInTheWrongSectionNamesWhereItBelongs) {
  const std::string msg = input_error(
      "mesh:\n"               // 1
      "  mach: 0.5\n"         // 2
      "flow: {mach: 0.8}\n");  // 3
  EXPECT_CONTAINS(msg, "plate.yaml:2:3: unknown key 'mesh.mach'; did you mean 'flow.mach'");
}

// ------------------------------------------------------------ wrong types

TEST(DeckErrors, StringWhereRealExpected) {
  const std::string msg = input_error(
      "flow:\n"             // 1
      "  mach: fast\n");    // 2  value at column 9
  EXPECT_CONTAINS(msg, "plate.yaml:2:9: 'flow.mach' must be a real number in (0.0, 5.0]; got 'fast'");
}

TEST(DeckErrors, MappingWhereScalarExpected) {
  const std::string msg = input_error(
      "flow:\n"                     // 1
      "  mach: {value: 0.8}\n");    // 2
  EXPECT_CONTAINS(msg, "plate.yaml:2:9: 'flow.mach' must be a real number");
  EXPECT_CONTAINS(msg, "got a mapping");
}

TEST(DeckErrors, ListWhereScalarExpected) {
  const std::string msg = input_error("mesh: {cells_x: [1, 2]}\nflow: {mach: 1}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:17: 'mesh.cells_x' must be an integer in [2, 1048576]; got a list");
}

TEST(DeckErrors, ListOrScalarWhereSectionExpected) {
  std::string msg = input_error("mesh: [1, 2]\nflow: {mach: 1}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:7: 'mesh' is a section: it must be a mapping of keys "
                       "(cells_x, cells_y, length_x_m, element, origin_m); got a list");
  msg = input_error(
      "flow: {mach: 1}\n"    // 1
      "solver:\n"            // 2
      "  linear: fine\n");   // 3
  EXPECT_CONTAINS(msg, "plate.yaml:3:11: 'solver.linear' is a section");
  EXPECT_CONTAINS(msg, "got 'fine'");
}

TEST(DeckErrors, QuotedNumberIsAString) {
  const std::string msg = input_error("flow: {mach: \"0.8\"}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:14: 'flow.mach' must be a real number");
  EXPECT_CONTAINS(msg, "got the quoted string \"0.8\" (remove the quotes");
}

TEST(DeckErrors, IntegerRejectsRealText) {
  const std::string msg = input_error(
      "mesh:\n"                              // 1
      "  cells_x: 3.5\n"                     // 2
      "  cells_y: 1e3\n"                     // 3
      "flow: {mach: 1}\n"                    // 4
      "solver: {linear: {max_iterations: 99999999999999999999}}\n");  // 5
  EXPECT_CONTAINS(msg, "plate.yaml:2:12: 'mesh.cells_x' must be an integer in [2, 1048576]; "
                       "got '3.5', which is not an integer");
  EXPECT_CONTAINS(msg, "plate.yaml:3:12: 'mesh.cells_y' must be an integer");
  EXPECT_CONTAINS(msg, "got '1e3', which is not an integer");
  EXPECT_CONTAINS(msg, "plate.yaml:5:35: 'solver.linear.max_iterations' must be an integer >= 1; "
                       "got '99999999999999999999', which does not fit in a 64-bit integer");
}

TEST(DeckErrors, IntegerRejectsHexadecimal) {
  const std::string msg = input_error("mesh: {cells_x: 0x10}\nflow: {mach: 1}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:17: 'mesh.cells_x' must be an integer");
  EXPECT_CONTAINS(msg, "got '0x10'");
}

TEST(DeckErrors, RealRejectsInfinityAndNaN) {
  const std::string msg = input_error(
      "flow:\n"                  // 1
      "  mach: .inf\n"           // 2
      "  alpha_deg: .nan\n");    // 3
  EXPECT_CONTAINS(msg, "plate.yaml:2:9: 'flow.mach' must be a real number in (0.0, 5.0]; got "
                       "'.inf'; infinity and NaN are not allowed");
  EXPECT_CONTAINS(msg, "plate.yaml:3:14: 'flow.alpha_deg' must be a real number in [-90.0, 90.0]; "
                       "got '.nan'; infinity and NaN are not allowed");
}

TEST(DeckErrors, RealRejectsOverflow) {
  const std::string msg = input_error("flow: {mach: 1e400}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:14: 'flow.mach' must be a real number");
  EXPECT_CONTAINS(msg, "too large or too small for a double");
}

TEST(DeckErrors, BooleanIsTrueOrFalseOnly) {
  std::string msg = input_error("flow: {mach: 1, viscous: yes}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:26: 'flow.viscous' must be true or false; got 'yes'");
  msg = input_error("flow: {mach: 1, viscous: \"true\"}\n");
  EXPECT_CONTAINS(msg, "'flow.viscous' must be true or false; got the quoted string \"true\"");
}

TEST(DeckErrors, KeyWithoutValue) {
  const std::string msg = input_error(
      "flow:\n"        // 1
      "  mach:\n");    // 2
  EXPECT_CONTAINS(msg, "plate.yaml:2:3: 'flow.mach' has no value; it must be a real number");
  EXPECT_LACKS(msg, "missing required");
}

// ------------------------------------------------------------ ranges, choices, lists

TEST(DeckErrors, OutOfRange) {
  const std::string msg = input_error(
      "mesh:\n"             // 1
      "  cells_x: 1\n"      // 2
      "flow:\n"             // 3
      "  mach: 0\n");       // 4  the lower bound of mach is exclusive
  EXPECT_CONTAINS(msg, "plate.yaml:2:12: 'mesh.cells_x' = 1 is out of range: it must be an "
                       "integer in [2, 1048576]");
  EXPECT_CONTAINS(msg, "plate.yaml:4:9: 'flow.mach' = 0 is out of range: it must be a real "
                       "number in (0.0, 5.0]");
}

TEST(DeckErrors, ListLengthAndElements) {
  const std::string msg = input_error(
      "mesh: {origin_m: [1, 2, 3]}\n"        // 1  list at column 18
      "flow: {mach: 1}\n"                    // 2
      "design: {ffd_points: [8, 1]}\n");     // 3  second entry at column 26
  EXPECT_CONTAINS(msg, "plate.yaml:1:18: 'mesh.origin_m' has 3 entries; it must be a list of "
                       "exactly 2 real numbers");
  EXPECT_CONTAINS(msg, "plate.yaml:3:26: 'design.ffd_points[1]' = 1 is out of range: it must "
                       "be an integer >= 2");
}

TEST(DeckErrors, ScalarWhereListExpected) {
  const std::string msg = input_error("flow: {mach: 1}\ndesign: {ffd_points: 8}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:2:22: 'design.ffd_points' must be a list of exactly 2 "
                       "integers, each >= 2; got '8'");
}

TEST(DeckErrors, ValueNotInChoiceList) {
  const std::string msg = input_error("mesh: {element: qaud}\nflow: {mach: 1}\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:17: 'mesh.element' = 'qaud' is not allowed: it must be "
                       "one of: quad, tri; did you mean 'quad'?");
}

// ------------------------------------------------------------ required keys

TEST(DeckErrors, MissingRequiredKeyNamesTheSectionLine) {
  const std::string msg = input_error(
      "case: plate\n"           // 1
      "mesh: {cells_x: 8}\n"    // 2
      "flow:\n"                 // 3
      "  alpha_deg: 2\n");      // 4
  EXPECT_CONTAINS(msg, "plate.yaml:3:1: missing required key 'flow.mach' in section 'flow': it "
                       "must be a real number in (0.0, 5.0] (Free-stream Mach number.)");
}

TEST(DeckErrors, MissingRequiredKeyInAbsentSection) {
  std::string msg = input_error("case: plate\n");
  EXPECT_CONTAINS(msg, "plate.yaml:1:1: missing required key 'flow.mach' (section 'flow' is "
                       "absent)");

  Schema s;
  s.string("name", required, "Run name.");
  s.section("a").integer("c", 1, {}, "C.").section("b").integer("n", required, {}, "N.");
  msg = input_error(
      "other: 1\n"     // 1
      "a:\n"           // 2
      "  c: 2\n",      // 3
      s);
  EXPECT_CONTAINS(msg, "plate.yaml:1:1: missing required top-level key 'name': it must be a "
                       "string (Run name.)");
  EXPECT_CONTAINS(msg, "plate.yaml:2:1: missing required key 'a.b.n' (section 'a.b' is absent)");
  EXPECT_CONTAINS(msg, "plate.yaml:1:1: unknown key 'other'");
}

// ------------------------------------------------------------ duplicates

TEST(DeckErrors, DuplicateKeys) {
  const std::string msg = input_error(
      "mesh:\n"                 // 1
      "  cells_x: 8\n"          // 2
      "  cells_y: 8\n"          // 3
      "  cells_x: 16\n"         // 4
      "flow: {mach: 1}\n"       // 5
      "mesh: {cells_y: 4}\n");  // 6
  EXPECT_CONTAINS(msg, "plate.yaml:4:3: duplicate key 'mesh.cells_x' (first given at line 2, "
                       "column 3)");
  EXPECT_CONTAINS(msg, "plate.yaml:6:1: duplicate key 'mesh' (first given at line 1, column 1)");
}

// ------------------------------------------------------------ document-level problems

TEST(DeckErrors, MalformedYaml) {
  const std::string msg = input_error(
      "case: plate\n"           // 1
      "flow:\n"                 // 2
      "  mach: 0.8\n"           // 3
      "   alpha_deg: 1\n");     // 4  the ':' at column 13 cannot follow a scalar
  EXPECT_CONTAINS(msg, "plate.yaml:4:13: malformed YAML: illegal map value");
}

TEST(DeckErrors, UnterminatedFlowMapping) {
  const std::string msg = input_error(
      "case: plate\n"            // 1
      "flow: {mach: 0.8\n");     // 2
  EXPECT_CONTAINS(msg, "plate.yaml:");
  EXPECT_CONTAINS(msg, "malformed YAML");
}

TEST(DeckErrors, EmptyDeck) {
  EXPECT_CONTAINS(input_error(""), "plate.yaml: the deck is empty");
  EXPECT_CONTAINS(input_error("# only a comment\n\n"), "plate.yaml: the deck is empty");
  EXPECT_CONTAINS(input_error("---\n"), "plate.yaml: the deck is empty");
}

TEST(DeckErrors, TopLevelNotAMapping) {
  EXPECT_CONTAINS(input_error("- mesh\n- flow\n"),
                  "plate.yaml:1:1: the top level of a deck must be a mapping of keys");
  const std::string msg = input_error("\njust text\n");
  EXPECT_CONTAINS(msg, "plate.yaml:2:1: the top level of a deck must be a mapping");
  EXPECT_CONTAINS(msg, "got 'just text'");
}

TEST(DeckErrors, SeveralDocuments) {
  const std::string msg = input_error(
      "flow: {mach: 1}\n"     // 1
      "---\n"                 // 2
      "flow: {mach: 2}\n");   // 3
  EXPECT_CONTAINS(msg, "plate.yaml:3:1: the file holds 2 YAML documents");
}

TEST(DeckErrors, EveryProblemIsReportedInFileOrder) {
  const std::string msg = input_error(
      "flow:\n"              // 1
      "  mach: 9\n"          // 2
      "mesh:\n"              // 3
      "  cells_x: many\n"    // 4
      "  colour: red\n");    // 5
  const auto p2 = msg.find("plate.yaml:2:9:");
  const auto p4 = msg.find("plate.yaml:4:12:");
  const auto p5 = msg.find("plate.yaml:5:3:");
  ASSERT_NE(p2, std::string::npos) << msg;
  ASSERT_NE(p4, std::string::npos) << msg;
  ASSERT_NE(p5, std::string::npos) << msg;
  EXPECT_LT(p2, p4);
  EXPECT_LT(p4, p5);
}

// ------------------------------------------------------------ files

TEST(DeckFiles, LoadsAFileAndNamesItInPlaces) {
  const TempFile file("case: from-file\nflow:\n  mach: 0.5\n");
  const Deck deck = camber::deck::load_deck(file.path, plate_schema());
  EXPECT_EQ(deck.string("case"), "from-file");
  EXPECT_EQ(deck.where("flow.mach"), file.path + ":3:9");
  EXPECT_EQ(deck.where("mesh.cells_x"), file.path + " (default)");
}

TEST(DeckFiles, TheDecksTextIsItsFilesAndEmptyWithoutOne) {
  const std::string text = "case: from-file\nflow:\n  mach: 0.5  # a comment stays\n";
  const TempFile file(text);
  EXPECT_EQ(camber::deck::deck_text(camber::deck::load_deck(file.path, plate_schema())), text);
  EXPECT_EQ(camber::deck::deck_text(parse_deck("flow: {mach: 1}\n", "no_such_dir/p.yaml", plate_schema())), "");
}

TEST(DeckFiles, ErrorsNameTheFile) {
  const TempFile file("flow:\n  mach: -1\n");
  try {
    camber::deck::load_deck(file.path, plate_schema());
    ADD_FAILURE() << "deck was accepted";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_CONTAINS(e.message(), file.path + ":2:9: 'flow.mach' = -1 is out of range");
  }
}

TEST(DeckFiles, MissingFileDirectoryAndEmptyFile) {
  auto load_error = [](const std::string& path) {
    try {
      camber::deck::load_deck(path, plate_schema());
    } catch (const camber::Error& e) {
      EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
      return e.message();
    }
    ADD_FAILURE() << path << " was accepted";
    return std::string();
  };
  EXPECT_CONTAINS(load_error("/nonexistent/camber/plate.yaml"),
                  "cannot read deck '/nonexistent/camber/plate.yaml': no such file");
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_CONTAINS(load_error(dir), "cannot read deck '" + dir + "': it is a directory");
  const TempFile empty("");
  EXPECT_CONTAINS(load_error(empty.path), empty.path + ": the deck is empty");
}

// ------------------------------------------------------------ Deck API misuse and reject()

TEST(DeckAccess, UndeclaredKeyOrWrongAccessorIsAProgrammingError) {
  const Deck deck = parse_deck("flow: {mach: 1}\n", "plate.yaml", plate_schema());
  EXPECT_CONTAINS(programming_error([&] { deck.real("mesh.cells_x"); }),
                  "'mesh.cells_x' is declared as integer; use Deck::integer()");
  EXPECT_CONTAINS(programming_error([&] { deck.integer("mesh.cels_x"); }),
                  "'mesh.cels_x' is not declared in the deck schema; did you mean 'mesh.cells_x'?");
  EXPECT_CONTAINS(programming_error([&] { deck.real("mesh"); }), "'mesh' is a section");
  EXPECT_CONTAINS(programming_error([&] { deck.has("nowhere"); }), "is not declared");
  EXPECT_CONTAINS(programming_error([&] { deck.reals("mesh.element"); }), "use Deck::string()");
  EXPECT_EQ(deck.string("mesh.element"), "quad");  // choices read as strings
}

TEST(DeckAccess, RejectNamesWhereTheValueWasSet) {
  const Deck deck = parse_deck(
      "mesh:\n"             // 1
      "  cells_x: 6\n"      // 2
      "flow: {mach: 1}\n",  // 3
      "plate.yaml", plate_schema());
  try {
    deck.reject("mesh.cells_x", "must be a multiple of the rank count (4)");
    ADD_FAILURE() << "reject returned";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_EQ(e.message(),
              "plate.yaml:2:12: 'mesh.cells_x' = 6: must be a multiple of the rank count (4)");
  }
  try {
    deck.reject("mesh.element", "is not supported by this solver");
    ADD_FAILURE() << "reject returned";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.message(),
              "plate.yaml (default): 'mesh.element' = 'quad': is not supported by this solver");
  }
}

// ------------------------------------------------------------ schema declaration

TEST(DeckSchema, DeclarationMistakesAreProgrammingErrors) {
  EXPECT_CONTAINS(programming_error([] {
                    Schema s;
                    s.section("mesh").integer("n", 1, {}, "").integer("n", 2, {}, "");
                  }),
                  "'mesh.n' is declared twice");
  EXPECT_CONTAINS(programming_error([] {
                    Schema s;
                    s.integer("n", 1, {2, 8}, "");
                  }),
                  "default of 'n' 1 is not in [2, 8]");
  EXPECT_CONTAINS(programming_error([] {
                    Schema s;
                    s.choice("shape", "hex", {"quad", "tri"}, "");
                  }),
                  "'hex' is not one of: quad, tri");
  EXPECT_CONTAINS(programming_error([] {
                    Schema s;
                    s.real("a.b", 1.0, {}, "");
                  }),
                  "invalid key name 'a.b'");
  EXPECT_CONTAINS(programming_error([] {
                    Schema s;
                    s.section("mesh").section("n");
                    s.section("mesh").real("n", 1.0, {}, "");
                  }),
                  "'mesh.n' is declared twice");
  EXPECT_CONTAINS(programming_error([] { Range(1.0, 0.0); }), "empty Range");
  EXPECT_CONTAINS(programming_error([] { Range::greater_than(1.0).and_at_most(1.0); }),
                  "empty Range");
  EXPECT_CONTAINS(programming_error([] {
                    Schema s;
                    s.reals("xy", {1.0}, Length::exactly(2), {}, "");
                  }),
                  "default of 'xy' [1.0] is not a list of exactly 2 real numbers");
}

// Two modules adding to one schema, as solvers and apps do.
void declare_heat(Schema& s) {
  s.section("heat", "Heat equation.").real("conductivity_w_mk", 1.0, Range::positive(), "k.");
  s.section("output").boolean("temperature", true, "Write the temperature field.");
}
void declare_output(Schema& s) {
  s.section("output", "What to write.").string("dir", "out", "Output directory.");
}

TEST(DeckSchema, SeveralModulesBuildOneSchema) {
  Schema s;
  declare_heat(s);
  declare_output(s);
  EXPECT_EQ(s.find_section("output")->doc(), "What to write.");
  const Deck deck = parse_deck("output: {dir: run1, temperature: false}\n", "heat.yaml", s);
  EXPECT_EQ(deck.string("output.dir"), "run1");
  EXPECT_FALSE(deck.boolean("output.temperature"));
  EXPECT_EQ(deck.real("heat.conductivity_w_mk"), 1.0);
}

// ------------------------------------------------------------ reference

TEST(DeckReference, MarkdownDocumentsEveryKeyInDeclarationOrder) {
  const Schema schema = plate_schema();
  const std::string md = camber::deck::reference_markdown(schema, "Plate deck reference");
  EXPECT_EQ(md.rfind("# Plate deck reference\n", 0), 0u);

  const Deck deck = parse_deck("flow: {mach: 1}\n", "plate.yaml", schema);
  std::size_t previous = 0;
  for (const std::string& key : deck.keys()) {
    const std::size_t at = md.find("| `" + key + "` |");
    ASSERT_NE(at, std::string::npos) << key << " missing from\n" << md;
    EXPECT_GT(at, previous) << key << " out of declaration order";
    previous = at;
  }
  for (const char* heading : {"## Top-level keys", "## `mesh`", "## `flow`", "## `design`",
                              "## `solver`", "## `solver.linear`"})
    EXPECT_CONTAINS(md, heading);
  EXPECT_CONTAINS(md, "| `mesh.cells_x` | integer | `64` | in [2, 1048576] | Cells along x. |");
  EXPECT_CONTAINS(md, "| `flow.mach` | real | *required* | in (0.0, 5.0] | Free-stream Mach number. |");
  EXPECT_CONTAINS(md, "| `mesh.element` | choice | `quad` | `quad`, `tri` | Cell shape. |");
  EXPECT_CONTAINS(md, "| `mesh.origin_m` | list of reals | `[0.0, 0.0]` | exactly 2 entries | ");
  EXPECT_CONTAINS(md, "| `design.weights` | list of reals | `[]` | each >= 0.0 | ");
  EXPECT_CONTAINS(md, "| `flow.viscous` | boolean | `false` | true or false | ");
  EXPECT_CONTAINS(md, "Relative tolerance \\| of the Krylov solve.");
  EXPECT_CONTAINS(md, "The computational mesh.");
  EXPECT_EQ(md, camber::deck::reference_markdown(plate_schema(), "Plate deck reference"));
}

// ------------------------------------------------------------ text helpers

TEST(DeckText, EditDistance) {
  using camber::deck::detail::edit_distance;
  EXPECT_EQ(edit_distance("mahc", "mach"), 1u);      // transposition
  EXPECT_EQ(edit_distance("cels_x", "cells_x"), 1u);  // insertion
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);  // optimal string alignment, not full Damerau
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(DeckText, NearestOnlySuggestsCloseNames) {
  using camber::deck::detail::nearest;
  const std::vector<std::string> keys{"cells_x", "cells_y", "length_x_m"};
  EXPECT_EQ(nearest("cels_x", keys).value_or(""), "cells_x");
  EXPECT_EQ(nearest("Cells_Y", keys).value_or(""), "cells_y");
  EXPECT_FALSE(nearest("zzzz", keys).has_value());
  EXPECT_FALSE(nearest("length", keys).has_value());  // 4 edits from a 10-letter key
}

TEST(DeckText, NumberParsingAndFormatting) {
  using namespace camber::deck::detail;
  EXPECT_EQ(parse_integer("+5").value_or(0), 5);
  EXPECT_EQ(parse_integer("-12").value_or(0), -12);
  EXPECT_FALSE(parse_integer("3.5"));
  EXPECT_FALSE(parse_integer("1e3"));
  EXPECT_FALSE(parse_integer(""));
  EXPECT_FALSE(parse_integer("9223372036854775808"));
  EXPECT_EQ(parse_real(".5").value_or(0), 0.5);
  EXPECT_EQ(parse_real("-2.5e-3").value_or(0), -2.5e-3);
  EXPECT_EQ(parse_real("7").value_or(0), 7.0);
  EXPECT_FALSE(parse_real("inf"));
  EXPECT_FALSE(parse_real("1e400"));
  EXPECT_FALSE(parse_real("1.0.0"));
  EXPECT_FALSE(parse_real("e5"));
  EXPECT_EQ(format_real(0.1), "0.1");
  EXPECT_EQ(format_real(1.0), "1.0");
  EXPECT_EQ(format_real(1e-10), "1e-10");
}

}  // namespace
