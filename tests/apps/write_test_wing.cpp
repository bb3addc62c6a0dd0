// Writes the wing of the 3-D Euler tests (tests/solvers/euler/
// euler_test_utils.hpp, extruded_wing: a NACA 0012 section of chord 1,
// span 0.6 along y between the symmetry planes z_lo (y = 0) and z_hi, 960
// hexahedra) as an SU2 file, for the tests of `camber optimize` on a 3-D
// mesh.
//
//   write_test_wing FILE.su2
#include <cstdio>

#include <camber/core/runtime.hpp>
#include <camber/mesh/su2_writer.hpp>
#include "tests/solvers/euler/euler_test_utils.hpp"

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_test_wing FILE.su2\n");
    return 2;
  }
  return camber::run_guarded(runtime.comm(), [&] {
    camber::mesh::write_su2(
        camber::solvers::euler::test_utils::extruded_wing(camber::mesh::CellShape::quads), argv[1]);
    return 0;
  });
}
