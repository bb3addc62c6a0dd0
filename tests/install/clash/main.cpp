// Includes the project's own src/tensor.hpp and mesh/mesh.hpp beside
// Camber's mesh headers; both must be the ones meant.
#include "mesh/mesh.hpp"
#include "src/tensor.hpp"

#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/su2_reader.hpp>
#include <camber/core/runtime.hpp>

#include <cmath>
#include <cstdio>

#if !defined(USER_SRC_TENSOR_HPP) || !defined(USER_MESH_MESH_HPP)
#error "the project's own headers were not the ones included"
#endif

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  user::Tensor mine;
  user::Mesh my_mesh;
  // A 4 x 3 rectangle of 8 x 6 quads: area 12.
  const camber::mesh::Mesh m = camber::mesh::rectangle(8, 6, 4.0, 3.0);
  const double area = camber::mesh::total_volume(m);
  std::printf("user headers and Camber side by side: area %.15g (C++%ld)\n", area,
              static_cast<long>(__cplusplus));
  return std::abs(area - 12.0) < 1e-12 && mine.rows == 0 && my_mesh.cells == 0 &&
                 __cplusplus >= 201703L
             ? 0
             : 1;
}
