// The downstream project's own mesh/mesh.hpp: nothing like Camber's.
#pragma once
#define USER_MESH_MESH_HPP 1
namespace user {
struct Mesh {
  int cells = 0;
};
}  // namespace user
