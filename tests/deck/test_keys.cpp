// Tests for camber::deck::Keys: a settings struct's key table declares a
// schema whose defaults are the struct's own, reads a deck back into the
// struct, and names enum members by their tables.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <camber/core/enum_names.hpp>
#include <camber/core/error.hpp>
#include <camber/deck/deck.hpp>
#include <camber/deck/keys.hpp>
#include <camber/deck/schema.hpp>

namespace {

using camber::deck::Deck;
using camber::deck::IntRange;
using camber::deck::Keys;
using camber::deck::Length;
using camber::deck::Range;
using camber::deck::Schema;
using camber::deck::parse_deck;

enum class Shape { quads, triangles, mixed };
constexpr std::array<camber::EnumName<Shape>, 3> shape_names{
    {{Shape::quads, "quads"}, {Shape::triangles, "triangles"}, {Shape::mixed, "mixed"}}};

struct Plate {
  double length_m = 1.5;
  double mach = 0.0;
  int cells = 64;
  std::int64_t seed = 7;
  bool refine = true;
  std::string name = "plate";
  std::string solver = "cg";
  Shape shape = Shape::triangles;
  Shape wall_shape = Shape::quads;
  std::vector<double> weights{0.25, 0.75};
  std::vector<int> widths{32, 16};
  std::array<double, 3> point{0.25, 0.0, 0.0};
};

const Keys<Plate>& plate_keys() {
  static const Keys<Plate> keys =
      Keys<Plate>()
          .real("length_m", &Plate::length_m, Range::positive(), "Length.")
          .real("mach", &Plate::mach, camber::deck::required, Range::positive(), "Mach number.")
          .integer("cells", &Plate::cells, IntRange(2, 4096), "Cells.")
          .integer("seed", &Plate::seed, IntRange::non_negative(), "Seed.")
          .boolean("refine", &Plate::refine, "Refine.")
          .string("name", &Plate::name, "Name.")
          .choice("solver", &Plate::solver, {"cg", "gmres"}, "Solver.")
          .choice("shape", &Plate::shape, shape_names, "Shape.")
          .choice("wall_shape", &Plate::wall_shape, shape_names, {"quads", "triangles"},
                  "Wall shape.")
          .reals("weights", &Plate::weights, Length::any(), Range(0.0, 1.0), "Weights.")
          .integers("widths", &Plate::widths, Length::at_least(1), IntRange::positive(), "Widths.")
          .custom(
              "point",
              [](camber::deck::Section& s, const Plate& d) {
                s.reals("point", {d.point[0], d.point[1]}, Length::between(2, 3), Range::all(),
                        "Point.");
              },
              [](const Deck& deck, const std::string& path, Plate& p) {
                const std::vector<double>& v = deck.reals(path);
                p.point = {v[0], v[1], v.size() > 2 ? v[2] : 0.0};
              });
  return keys;
}

Schema plate_schema() {
  Schema s;
  plate_keys().declare(s.section("plate", "A plate."));
  s.section("plate").integer("other", 3, IntRange::all(), "A key of no table.");
  return s;
}

TEST(DeckKeys, DeclaredDefaultsAreTheStructsOwn) {
  const Schema s = plate_schema();
  const camber::deck::Section* plate = s.find_section("plate");
  ASSERT_NE(plate, nullptr);
  EXPECT_EQ(plate->find_key("length_m")->default_text(), "1.5");
  EXPECT_TRUE(plate->find_key("mach")->required);
  EXPECT_EQ(plate->find_key("cells")->default_text(), "64");
  EXPECT_EQ(plate->find_key("seed")->default_text(), "7");
  EXPECT_EQ(plate->find_key("refine")->default_text(), "true");
  EXPECT_EQ(plate->find_key("name")->default_text(), "plate");
  EXPECT_EQ(plate->find_key("shape")->default_text(), "triangles");
  EXPECT_EQ(plate->find_key("shape")->choices,
            (std::vector<std::string>{"quads", "triangles", "mixed"}));
  EXPECT_EQ(plate->find_key("wall_shape")->choices,
            (std::vector<std::string>{"quads", "triangles"}));
  EXPECT_EQ(plate->find_key("weights")->default_text(), "[0.25, 0.75]");
  EXPECT_EQ(plate->find_key("widths")->default_text(), "[32, 16]");
  EXPECT_EQ(plate->find_key("point")->default_text(), "[0.25, 0.0]");
  EXPECT_EQ(plate_keys().names().size(), 12u);
}

TEST(DeckKeys, ADeckThatGivesOnlyTheRequiredKeyReadsAsTheDefaultStruct) {
  const Deck d = parse_deck("plate:\n  mach: 0.5\n", "plate.yaml", plate_schema());
  Plate p = plate_keys().read(d, "plate");
  const Plate defaults;
  EXPECT_EQ(p.mach, 0.5);
  EXPECT_EQ(p.length_m, defaults.length_m);
  EXPECT_EQ(p.cells, defaults.cells);
  EXPECT_EQ(p.seed, defaults.seed);
  EXPECT_EQ(p.refine, defaults.refine);
  EXPECT_EQ(p.name, defaults.name);
  EXPECT_EQ(p.solver, defaults.solver);
  EXPECT_EQ(p.shape, defaults.shape);
  EXPECT_EQ(p.wall_shape, defaults.wall_shape);
  EXPECT_EQ(p.weights, defaults.weights);
  EXPECT_EQ(p.widths, defaults.widths);
  EXPECT_EQ(p.point, defaults.point);
}

TEST(DeckKeys, GivenValuesReachEveryMember) {
  const Deck d = parse_deck(
      "plate:\n  mach: 2.0\n  length_m: 3.0\n  cells: 10\n  seed: 123456789012\n"
      "  refine: false\n  name: wide\n  solver: gmres\n  shape: mixed\n  wall_shape: triangles\n"
      "  weights: [0.5]\n  widths: [8, 4, 2]\n  point: [1.0, 2.0, 3.0]\n  other: 9\n",
      "plate.yaml", plate_schema());
  Plate p;
  p.mach = -1.0;
  plate_keys().read(d, "plate", p);
  EXPECT_EQ(p.mach, 2.0);
  EXPECT_EQ(p.length_m, 3.0);
  EXPECT_EQ(p.cells, 10);
  EXPECT_EQ(p.seed, 123456789012);
  EXPECT_FALSE(p.refine);
  EXPECT_EQ(p.name, "wide");
  EXPECT_EQ(p.solver, "gmres");
  EXPECT_EQ(p.shape, Shape::mixed);
  EXPECT_EQ(p.wall_shape, Shape::triangles);
  EXPECT_EQ(p.weights, std::vector<double>{0.5});
  EXPECT_EQ(p.widths, (std::vector<int>{8, 4, 2}));
  EXPECT_EQ(p.point, (std::array<double, 3>{1.0, 2.0, 3.0}));
}

TEST(DeckKeys, ANameOutsideTheAllowedSubsetIsADeckError) {
  try {
    parse_deck("plate:\n  mach: 1.0\n  wall_shape: mixed\n", "plate.yaml", plate_schema());
    FAIL() << "mixed is not an allowed wall_shape";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("plate.yaml:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("plate.wall_shape"), std::string::npos) << e.what();
  }
}

// A struct holding a Plate: the plate's keys sit in the holder's section
// with the defaults of the holder's plate, which differ from Plate{}'s.
struct Holder {
  Plate plate = [] {
    Plate p;
    p.cells = 128;
    return p;
  }();
  double scale = 2.0;
};

TEST(DeckKeys, ANestedTableTakesTheHoldersDefaultsAndFillsItsMember) {
  static const Keys<Holder> keys = Keys<Holder>()
                                       .real("scale", &Holder::scale, Range::positive(), "Scale.")
                                       .nested(&Holder::plate, plate_keys());
  Schema s;
  keys.declare(s.section("holder", "A holder."));
  EXPECT_EQ(s.find_section("holder")->find_key("cells")->default_text(), "128");
  EXPECT_EQ(keys.names().size(), 13u);
  const Deck d = parse_deck("holder:\n  mach: 0.3\n  scale: 4.0\n  shape: mixed\n", "h.yaml", s);
  const Holder h = keys.read(d, "holder");
  EXPECT_EQ(h.scale, 4.0);
  EXPECT_EQ(h.plate.mach, 0.3);
  EXPECT_EQ(h.plate.cells, 128);
  EXPECT_EQ(h.plate.shape, Shape::mixed);
}

// A nested table made for its holder alone (help written for the caller):
// the holder keeps it, so it outlives the temporary it was made from.
Keys<Holder> holder_keys(const std::string& cells_help) {
  return Keys<Holder>().nested_copy(&Holder::plate,
                                    Keys<Plate>().integer("cells", &Plate::cells, IntRange(2, 4096), cells_help));
}

TEST(DeckKeys, ANestedTableMadeForTheHolderIsKeptByIt) {
  const Keys<Holder> keys = holder_keys("Cells of this plate.");
  Schema s;
  keys.declare(s.section("holder", "A holder."));
  const camber::deck::KeySpec* cells = s.find_section("holder")->find_key("cells");
  ASSERT_NE(cells, nullptr);
  EXPECT_EQ(cells->default_text(), "128");
  EXPECT_EQ(cells->doc, "Cells of this plate.");
  EXPECT_EQ(keys.names(), std::vector<std::string>{"cells"});
  const Deck d = parse_deck("holder:\n  cells: 12\n", "h.yaml", s);
  EXPECT_EQ(keys.read(d, "holder").plate.cells, 12);
}

TEST(DeckKeys, ReadingFromASchemaTheTableDidNotFillIsAProgrammingError) {
  Schema other;
  other.section("plate").real("mach", 1.0, Range::all(), "Mach number.");
  const Deck d = parse_deck("plate:\n  mach: 0.5\n", "plate.yaml", other);
  try {
    plate_keys().read(d, "plate");
    FAIL() << "plate.length_m was never declared";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::failure);
  }
}

}  // namespace
