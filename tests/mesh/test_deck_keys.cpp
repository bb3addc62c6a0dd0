// mesh/deck_keys.hpp: the generated airfoil grid's deck table declares
// the struct's defaults and reads a deck into it (the cell shape by name).
#include <gtest/gtest.h>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/mesh/deck_keys.hpp>

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

}  // namespace
