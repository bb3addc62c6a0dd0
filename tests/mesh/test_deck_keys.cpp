// mesh/deck_keys.hpp: the generated airfoil grid's deck table declares
// the struct's defaults and reads a deck into it (the cell shape by name);
// the checks across its keys reject, at the key's line, each key a
// generator would ignore and each grid validate_airfoil_grid refuses, and
// pass a deck that has neither. The mesh source's table (generate, file,
// the grid's keys) declares a default MeshSource's values and reads both
// kinds, paths from the deck's folder; its checks and the deck's build of
// a file source reject at mesh.file or the generator key, at its line.
// The rectangle source's table declares RectangleSettings' defaults with
// the caller's notes in its help, reads either kind, and the deck's build
// rejects a rectangle's fault at the key of the member.
#include <gtest/gtest.h>

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/mesh/deck_keys.hpp>
#include <camber/mesh/mesh_source.hpp>

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

deck::Schema source_schema() {
  deck::Schema s;
  mesh::mesh_source_keys().declare(s.section("mesh", "Mesh."));
  return s;
}

TEST(MeshSourceDeckKeys, DefaultsAreADefaultMeshSources) {
  const deck::Schema s = source_schema();
  const deck::Section& m = *s.find_section("mesh");
  const mesh::MeshSource d;
  // generate names the grid's kind for a generated source.
  ASSERT_EQ(d.kind, mesh::MeshSourceKind::generated);
  EXPECT_EQ(m.find_key("generate")->default_text(),
            std::string(camber::enum_name(mesh::airfoil_grid_kind_names, d.grid.kind)));
  EXPECT_EQ(m.find_key("generate")->choices,
            (std::vector<std::string>{"airfoil_ogrid", "conformal_ogrid", "karman_trefftz_ogrid", "file"}));
  EXPECT_EQ(m.find_key("file")->default_text(), d.file);
  // Every grid key: the default of a table declared over d.grid alone.
  deck::Schema grid;
  mesh::airfoil_grid_keys().declare(grid.section("mesh", "Mesh."), d.grid);
  for (const std::string& key : mesh::airfoil_grid_keys().names())
    EXPECT_EQ(m.find_key(key)->default_text(), grid.find_section("mesh")->find_key(key)->default_text())
        << key;
  // Declared over another source, the defaults are that source's.
  mesh::MeshSource f;
  f.kind = mesh::MeshSourceKind::file;
  f.file = "wing.su2";
  deck::Schema other;
  mesh::mesh_source_keys().declare(other.section("mesh", "Mesh."), f);
  EXPECT_EQ(other.find_section("mesh")->find_key("generate")->default_text(), "file");
  EXPECT_EQ(other.find_section("mesh")->find_key("file")->default_text(), "wing.su2");
}

TEST(MeshSourceDeckKeys, ADeckReadsEitherKindWithPathsFromItsFolder) {
  const deck::Deck g = deck::parse_deck(
      "mesh:\n  generate: conformal_ogrid\n  airfoil_file: foil.dat\n  cells_normal: 40\n",
      "cases/m.yaml", source_schema());
  const mesh::MeshSource a = mesh::read_mesh_source(g, "mesh");
  EXPECT_EQ(a.kind, mesh::MeshSourceKind::generated);
  EXPECT_EQ(a.grid.kind, mesh::AirfoilGridKind::conformal_ogrid);
  EXPECT_EQ(a.grid.airfoil_file, "cases/foil.dat");
  EXPECT_EQ(a.grid.cells_normal, 40);
  EXPECT_EQ(a.grid.cells_around, mesh::AirfoilGridSettings{}.cells_around);
  const deck::Deck f = deck::parse_deck("mesh:\n  generate: file\n  file: meshes/wing.su2\n",
                                        "cases/m.yaml", source_schema());
  const mesh::MeshSource b = mesh::read_mesh_source(f, "mesh");
  EXPECT_EQ(b.kind, mesh::MeshSourceKind::file);
  EXPECT_EQ(b.file, "cases/meshes/wing.su2");
}

// The message of the bad_input error that validate_mesh_source_keys raises
// on `yaml`; "" when the deck passes.
std::string source_rejection(const std::string& yaml) {
  const deck::Deck d = deck::parse_deck(yaml, "m.yaml", source_schema());
  return camber::test::bad_input_message([&] { mesh::validate_mesh_source_keys(d, "mesh"); });
}

TEST(MeshSourceDeckKeys, AFileAndTheGeneratorsKeysAreCheckedAgainstGenerate) {
  EXPECT_CONTAINS(source_rejection("mesh:\n  file: wing.su2\n"),
                  "m.yaml:2:9: 'mesh.file' = 'wing.su2': names a mesh file, but mesh.generate is "
                  "'airfoil_ogrid' (its default), so the file would be ignored");
  EXPECT_CONTAINS(source_rejection("mesh:\n  generate: conformal_ogrid\n  file: wing.su2\n"),
                  "mesh.generate is 'conformal_ogrid', so the file would be ignored");
  EXPECT_CONTAINS(source_rejection("mesh:\n  generate: file\n"),
                  "mesh.generate is file, so mesh.file must name a .su2, .msh or .cgns file");
  EXPECT_CONTAINS(source_rejection("mesh:\n  generate: file\n  file: wing.su2\n  cells_around: 256\n"),
                  "m.yaml:4:17: 'mesh.cells_around' = 256: only shapes a generated mesh, and "
                  "mesh.generate is file");
  // A generated grid's own checks follow.
  EXPECT_CONTAINS(source_rejection("mesh:\n  generate: karman_trefftz_ogrid\n  cells: 33\n"),
                  "m.yaml:3:10: 'mesh.cells' = 33: must be even");
  EXPECT_EQ(source_rejection("mesh:\n  generate: file\n  file: wing.su2\n"), "");
  EXPECT_EQ(source_rejection("mesh:\n  generate: karman_trefftz_ogrid\n  cells: 32\n"), "");
  // Another section's generator keys (a rectangle's).
  deck::Schema rect;
  rect.section("mesh", "Mesh.")
      .choice("generate", "rectangle", {"rectangle", "file"}, "Source.")
      .string("file", "", "File.")
      .integer("cells_x", 8, deck::IntRange(2, 64), "Cells.");
  const deck::Deck r = deck::parse_deck("mesh:\n  generate: file\n  file: a.su2\n  cells_x: 4\n",
                                        "r.yaml", rect);
  EXPECT_CONTAINS(camber::test::bad_input_message(
                      [&] { mesh::validate_mesh_file_keys(r, "mesh", {"cells_x"}); }),
                  "r.yaml:4:12: 'mesh.cells_x' = 4: only shapes a generated mesh");
}

TEST(MeshSourceDeckKeys, TheDecksBuildRejectsAFileAtMeshFile) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  // Missing: the path as resolved, and where relative paths start.
  const deck::Deck missing = deck::parse_deck("mesh:\n  generate: file\n  file: no_such.su2\n",
                                              "cases/m.yaml", source_schema());
  std::string m = camber::test::bad_input_message([&] {
    mesh::build_mesh_chunk(missing, "mesh", mesh::read_mesh_source(missing, "mesh"), comm, 2, "x");
  });
  EXPECT_CONTAINS(m, "m.yaml:3:9: 'mesh.file' = 'no_such.su2': cannot find 'cases/no_such.su2' "
                     "(relative paths start at the deck's folder)");
  // A 3-D mesh where 2-D ones are asked for, named by what asks.
  const std::string hex = std::string(CAMBER_MESH_TEST_DATA) + "/hex_pyramid.msh";
  const deck::Deck three_d = deck::parse_deck("mesh:\n  generate: file\n  file: " + hex + "\n",
                                              "m.yaml", source_schema());
  const mesh::MeshSource src = mesh::read_mesh_source(three_d, "mesh");
  m = camber::test::bad_input_message(
      [&] { mesh::build_mesh_chunk(three_d, "mesh", src, comm, 2, "this solver"); });
  EXPECT_CONTAINS(m, "'mesh.file' = '" + hex + "': '" + hex +
                         "' is a 3-D mesh; this solver works on 2-D meshes so far");
  EXPECT_EQ(mesh::build_mesh_chunk(three_d, "mesh", src, comm, 3, "").dim, 3);
  // Fewer cells than ranks.
  m = camber::test::bad_input_message([&] { mesh::require_cells_for_ranks(three_d, "mesh.file", 0, comm); });
  EXPECT_CONTAINS(m, "'mesh.file' = '" + hex + "': the mesh has 0 cells for 1 ranks; every rank "
                     "needs at least one cell");
  // A generated grid's fault (were the checks skipped) at the grid's key.
  const deck::Deck naca = deck::parse_deck("mesh:\n  naca: '2400'\n", "m.yaml", source_schema());
  m = camber::test::bad_input_message([&] {
    mesh::build_mesh_chunk(naca, "mesh", mesh::read_mesh_source(naca, "mesh"), comm, 2, "x");
  });
  EXPECT_CONTAINS(m, "m.yaml:2:9: 'mesh.naca' = '2400': '2400' is not a NACA 4-digit designation");
}

deck::Schema rectangle_schema() {
  deck::Schema s;
  mesh::rectangle_source_keys("Markers get T = 0.", "; also L{}")
      .declare(s.section("mesh", "Mesh."));
  return s;
}

TEST(RectangleSourceDeckKeys, DefaultsAreTheStructsAndNotesGoIntoTheHelp) {
  const deck::Schema s = rectangle_schema();
  const deck::Section& m = *s.find_section("mesh");
  const mesh::RectangleSettings r;
  EXPECT_EQ(m.find_key("generate")->default_text(), "rectangle");
  EXPECT_EQ(m.find_key("generate")->choices, (std::vector<std::string>{"rectangle", "file"}));
  EXPECT_NE(m.find_key("generate")->doc.find("file: read mesh.file. Markers get T = 0. The cells"),
            std::string::npos) << m.find_key("generate")->doc;
  EXPECT_EQ(m.find_key("cells_x")->default_text(), deck::value_text(std::int64_t{r.cells_x}));
  EXPECT_EQ(m.find_key("cells_y")->default_text(), deck::value_text(std::int64_t{r.cells_y}));
  EXPECT_EQ(m.find_key("length_x_m")->default_text(), deck::value_text(r.length_x_m));
  EXPECT_EQ(m.find_key("length_y_m")->doc, "Domain length along y, in metres (rectangle); also Ly.");
  EXPECT_EQ(m.find_key("file")->default_text(), "");
}

TEST(RectangleSourceDeckKeys, ADeckReadsEitherKindAndTheBuildRejectsAtTheKey) {
  const deck::Deck r = deck::parse_deck("mesh:\n  cells_x: 6\n  length_y_m: 2.0\n", "cases/h.yaml",
                                        rectangle_schema());
  mesh::MeshSource a = mesh::read_rectangle_source(r, "mesh");
  EXPECT_EQ(a.kind, mesh::MeshSourceKind::rectangle);
  EXPECT_EQ(a.rectangle.cells_x, 6);
  EXPECT_EQ(a.rectangle.cells_y, mesh::RectangleSettings{}.cells_y);
  EXPECT_EQ(a.rectangle.length_y_m, 2.0);
  EXPECT_EQ(mesh::build_mesh_chunk(r, "mesh", a, MPI_COMM_WORLD, 2, "x").n_global_cells, 6 * 64);
  a.rectangle.cells_x = 0;  // past the deck's range: rejected at the member's key
  EXPECT_CONTAINS(camber::test::bad_input_message(
                      [&] { mesh::build_mesh_chunk(r, "mesh", a, MPI_COMM_WORLD, 2, "x"); }),
                  "h.yaml:2:12: 'mesh.cells_x' = 6: 0 cells; at least 1");
  const deck::Deck f = deck::parse_deck("mesh:\n  generate: file\n  file: plate.su2\n", "cases/h.yaml",
                                        rectangle_schema());
  const mesh::MeshSource b = mesh::read_rectangle_source(f, "mesh");
  EXPECT_EQ(b.kind, mesh::MeshSourceKind::file);
  EXPECT_EQ(b.file, "cases/plate.su2");
  const deck::Deck both = deck::parse_deck("mesh:\n  generate: file\n  file: p.su2\n  cells_y: 8\n",
                                           "h.yaml", rectangle_schema());
  EXPECT_CONTAINS(camber::test::bad_input_message([&] { mesh::validate_rectangle_source_keys(both, "mesh"); }),
                  "h.yaml:4:12: 'mesh.cells_y' = 8: only shapes a generated mesh");
  const deck::Deck lengths = deck::parse_deck("mesh:\n  generate: file\n  file: p.su2\n  length_x_m: 2.0\n",
                                              "h.yaml", rectangle_schema());
  EXPECT_EQ(camber::test::bad_input_message([&] { mesh::validate_rectangle_source_keys(lengths, "mesh"); }), "");
}

}  // namespace
