// mesh/deck_keys.hpp: the generated airfoil grid's deck table declares
// the struct's defaults and reads a deck into it (the cell shape by name);
// the checks across its keys reject, at the key's line, each key a
// generator would ignore and each grid validate_airfoil_grid refuses, and
// pass a deck that has neither.
#include <gtest/gtest.h>

#include <string>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/mesh/deck_keys.hpp>

#include "tests/common/bad_input.hpp"

namespace {

namespace deck = camber::deck;
namespace mesh = camber::mesh;

TEST(MeshDeckKeys, DefaultsAreTheStructsAndADeckReachesTheMembers) {
  deck::Schema s;
  mesh::airfoil_grid_keys().declare(s.section("mesh", "Mesh."));
  const mesh::AirfoilGridSettings g;
  const deck::Section& m = *s.find_section("mesh");
  EXPECT_EQ(m.find_key("naca")->default_text(), g.naca);
  EXPECT_EQ(m.find_key("cells_around")->default_text(), deck::value_text(std::int64_t{g.cells_around}));
  EXPECT_EQ(m.find_key("first_cell_height")->default_text(), deck::value_text(g.first_cell_height));
  EXPECT_EQ(m.find_key("cell_shape")->default_text(), "quads");
  const deck::Deck d = deck::parse_deck(
      "mesh:\n  naca: '2412'\n  cells_normal: 40\n  cell_shape: triangles\n  sharp_trailing_edge: false\n",
      "m.yaml", s);
  const mesh::AirfoilGridSettings r = mesh::airfoil_grid_keys().read(d, "mesh");
  EXPECT_EQ(r.naca, "2412");
  EXPECT_EQ(r.cells_normal, 40);
  EXPECT_EQ(r.cell_shape, mesh::CellShape::triangles);
  EXPECT_FALSE(r.sharp_trailing_edge);
  EXPECT_EQ(r.cells_around, g.cells_around);
  EXPECT_EQ(r.kind, g.kind);
}

deck::Schema grid_schema() {
  deck::Schema s;
  mesh::airfoil_grid_keys().declare(s.section("mesh", "Mesh."));
  return s;
}

// The message of the bad_input error that checking `yaml` as a grid of
// `kind` raises; "" when the deck passes.
std::string rejection(const std::string& yaml, mesh::AirfoilGridKind kind) {
  const deck::Deck d = deck::parse_deck(yaml, "m.yaml", grid_schema());
  return camber::test::bad_input_message([&] { mesh::validate_airfoil_grid_keys(d, "mesh", kind); });
}

#define EXPECT_CONTAINS(text, piece) \
  EXPECT_NE(std::string(text).find(piece), std::string::npos) << (text)

TEST(MeshDeckKeys, KeysTheGeneratorWouldIgnoreAreRejectedAtTheirLine) {
  using K = mesh::AirfoilGridKind;
  std::string m = rejection("mesh:\n  naca: '2412'\n  airfoil_file: rae2822.dat\n", K::airfoil_ogrid);
  EXPECT_CONTAINS(m, "m.yaml:2:9: 'mesh.naca'");
  EXPECT_CONTAINS(m, "the airfoil comes from mesh.airfoil_file, so this would be ignored");
  m = rejection("mesh:\n  airfoil_file: rae2822.dat\n  sharp_trailing_edge: false\n", K::conformal_ogrid);
  EXPECT_CONTAINS(m, "m.yaml:3:24: 'mesh.sharp_trailing_edge'");
  m = rejection("mesh:\n  cells: 64\n", K::airfoil_ogrid);
  EXPECT_CONTAINS(m, "m.yaml:2:10: 'mesh.cells' = 64: does not shape a 'airfoil_ogrid' mesh");
  m = rejection("mesh:\n  first_cell_height: 0.001\n", K::conformal_ogrid);
  EXPECT_CONTAINS(m, "'mesh.first_cell_height' = 0.001: does not shape a 'conformal_ogrid' mesh");
  m = rejection("mesh:\n  cells: 64\n  cells_around: 64\n", K::karman_trefftz_ogrid);
  EXPECT_CONTAINS(m, "m.yaml:3:17: 'mesh.cells_around' = 64: does not shape a 'karman_trefftz_ogrid' mesh");
}

TEST(MeshDeckKeys, GridsTheGeneratorsRefuseAreRejectedAtTheMembersKey) {
  using K = mesh::AirfoilGridKind;
  std::string m = rejection("mesh:\n  cells: 65\n", K::karman_trefftz_ogrid);
  EXPECT_CONTAINS(m, "m.yaml:2:10: 'mesh.cells' = 65: must be even");
  m = rejection("mesh:\n  naca: '2400'\n", K::airfoil_ogrid);
  EXPECT_CONTAINS(m, "'mesh.naca'");
  EXPECT_CONTAINS(m, "is not a NACA 4-digit designation");
  m = rejection("mesh:\n  sharp_trailing_edge: false\n", K::conformal_ogrid);
  EXPECT_CONTAINS(m, "'mesh.sharp_trailing_edge'");
  // The file is looked for beside the deck, and the message names that path.
  const deck::Deck d = deck::parse_deck("mesh:\n  airfoil_file: no_such.dat\n", "cases/m.yaml",
                                        grid_schema());
  m = camber::test::bad_input_message([&] { mesh::validate_airfoil_grid_keys(d, "mesh", K::airfoil_ogrid); });
  EXPECT_CONTAINS(m, "'mesh.airfoil_file' = 'no_such.dat': cannot find 'cases/no_such.dat'");
}

TEST(MeshDeckKeys, AGridEveryCheckAcceptsPassesAndReads) {
  using K = mesh::AirfoilGridKind;
  EXPECT_EQ(rejection("mesh:\n  naca: '2412'\n  cells_around: 64\n  cell_shape: triangles\n",
                      K::airfoil_ogrid), "");
  EXPECT_EQ(rejection("mesh:\n  cells: 64\n", K::karman_trefftz_ogrid), "");
  EXPECT_EQ(rejection("{}\n", K::conformal_ogrid), "");
  const deck::Deck d = deck::parse_deck("mesh:\n  airfoil_file: foil.dat\n", "cases/m.yaml",
                                        grid_schema());
  const mesh::AirfoilGridSettings g = mesh::read_airfoil_grid(d, "mesh", K::conformal_ogrid);
  EXPECT_EQ(g.kind, K::conformal_ogrid);
  EXPECT_EQ(g.airfoil_file, "cases/foil.dat");
}

}  // namespace
