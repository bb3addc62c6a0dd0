// mesh/airfoil_grid.hpp: each kind is the generator it names with the
// settings given (the same nodes), the cell counts of the definitions
// (cells_around x cells_normal quads, twice as many triangles, N x N for
// Vassberg and Jameson's grid), and every check names its member.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <camber/core/error.hpp>
#include <camber/mesh/airfoil_grid.hpp>
#include <camber/mesh/karman_trefftz_ogrid.hpp>

namespace {

namespace mesh = camber::mesh;

void expect_same_nodes(const mesh::Mesh& a, const mesh::Mesh& b) {
  ASSERT_EQ(a.n_cells(), b.n_cells());
  ASSERT_EQ(a.n_nodes(), b.n_nodes());
  const auto xa = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.coords());
  const auto xb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.coords());
  for (size_t i = 0; i < xa.extent(0); ++i)
    for (size_t d = 0; d < xa.extent(1); ++d) ASSERT_EQ(xa(i, d), xb(i, d)) << "node " << i;
}

// The member a check names, or "" when the settings pass.
std::string rejected(const mesh::AirfoilGridSettings& s) {
  std::string member;
  try {
    mesh::validate_airfoil_grid(s, [&](const std::string& m, const std::string& what) {
      member = m;
      throw std::runtime_error(what);
    });
  } catch (const std::runtime_error&) {
  }
  return member;
}

TEST(AirfoilGrid, EachKindIsTheGeneratorItNames) {
  mesh::AirfoilGridSettings s;
  s.naca = "2412";
  s.cells_around = 32;
  s.cells_normal = 8;
  const mesh::Mesh o = mesh::airfoil_grid(s);
  EXPECT_EQ(o.n_cells(), 32 * 8);
  expect_same_nodes(o, mesh::airfoil_ogrid(mesh::naca4("2412", true, 201), 32, 8, 2e-3, 50.0));
  s.cell_shape = mesh::CellShape::triangles;
  EXPECT_EQ(mesh::airfoil_grid(s).n_cells(), 2 * 32 * 8);

  s = {};
  s.kind = mesh::AirfoilGridKind::karman_trefftz_ogrid;
  s.cells = 16;
  const mesh::Mesh kt = mesh::airfoil_grid(s);
  EXPECT_EQ(kt.n_cells(), 16 * 16);
  expect_same_nodes(kt, mesh::karman_trefftz_ogrid(16));

  s = {};
  s.kind = mesh::AirfoilGridKind::conformal_ogrid;
  s.cells_around = 32;
  s.cells_normal = 16;
  s.farfield_chords = 20.0;
  expect_same_nodes(mesh::airfoil_grid(s),
                    mesh::conformal_ogrid(mesh::naca4("0012", true, 4001), 32, 16, 20.0));
}

TEST(AirfoilGrid, ChecksNameTheMember) {
  mesh::AirfoilGridSettings s;
  EXPECT_EQ(rejected(s), "");
  s.naca = "0000";  // no thickness
  EXPECT_EQ(rejected(s), "naca");
  s.naca = "12";
  EXPECT_EQ(rejected(s), "naca");
  EXPECT_THROW(mesh::airfoil_grid(s), camber::Error);
  s = {};
  s.airfoil_file = (std::filesystem::temp_directory_path() / "no_such_camber_airfoil.dat").string();
  EXPECT_EQ(rejected(s), "airfoil_file");
  s = {};
  s.kind = mesh::AirfoilGridKind::conformal_ogrid;
  s.sharp_trailing_edge = false;
  EXPECT_EQ(rejected(s), "sharp_trailing_edge");
  s = {};
  s.kind = mesh::AirfoilGridKind::karman_trefftz_ogrid;
  s.cells = 17;
  EXPECT_EQ(rejected(s), "cells");
  s.naca = "bad";  // not used by this grid
  s.cells = 18;
  EXPECT_EQ(rejected(s), "");
}

}  // namespace
