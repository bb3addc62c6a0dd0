// The downstream project's own src/tensor.hpp: nothing like Camber's.
#pragma once
#define USER_SRC_TENSOR_HPP 1
namespace user {
struct Tensor {
  int rows = 0;
};
}  // namespace user
