/// @file
/// camber::design::LinearMap — a linear map on Tensors that enters the AD
/// graph as one node, with the transpose map as its reverse-mode rule.
///
/// Every map of the design module (shape parametrizations, mesh deformation)
/// is linear, y = offset + J x, and J is applied without being formed where
/// it would be large. apply_linear() makes it one ad::custom_op:
/// @code
///   forward   y = offset + J x
///   vjp       x_bar = J^T y_bar      (apply_linear_transpose, itself an op)
///   jvp       y_dot = J x_dot        (apply_linear again, without offset)
/// @endcode
/// The two ops refer to each other, so derivatives of any order work (the
/// second derivative of a linear map is zero, and the graph says so).
///
/// @code
///   namespace ad = camber::ad;
///   auto J = std::make_shared<camber::design::DenseMap>(M, "my_map");  // M: (3, 2)
///   ad::Var x = ad::variable(camber::Tensor::from_host({2}, {1.0, 2.0}));
///   ad::Var y = camber::design::apply_linear(J, x);                      // shape {3}
///   ad::Var g = ad::grad(ad::sum(y), {x})[0];                            // M^T 1
/// @endcode
///
/// Most users want a parametrization (design/hicks_henne.hpp, design/cst.hpp,
/// design/ffd.hpp) or design/mesh_deformation.hpp, which build their maps.
///
/// Ownership: the graph nodes hold the map through a shared_ptr, so a Var
/// stays differentiable after the object that built the map is gone. A map
/// must not change after it is shared (it is const throughout).
#pragma once

#include <memory>
#include <string>

#include <camber/autodiff/variable.hpp>
#include <camber/core/tensor.hpp>

namespace camber::design {

/// y = J x between Tensors of fixed shapes.
class LinearMap {
 public:
  virtual ~LinearMap() = default;
  virtual Shape input_shape() const = 0;
  virtual Shape output_shape() const = 0;
  /// J x; x has input_shape(), the result output_shape().
  virtual Tensor apply(const Tensor& x) const = 0;
  /// J^T y; y has output_shape(), the result input_shape().
  virtual Tensor apply_transpose(const Tensor& y) const = 0;
  /// Name of the graph node ("hicks_henne", "idw", ...).
  virtual std::string name() const = 0;
};

/// offset + J x as one graph node (see the header comment). An empty
/// `offset` (a default-constructed Tensor) means zero; otherwise it must have
/// the map's output shape. Throws camber::Error when x's shape is not the
/// map's input shape.
ad::Var apply_linear(const std::shared_ptr<const LinearMap>& map, const ad::Var& x,
                     const Tensor& offset = Tensor());
/// J^T y as one graph node; its VJP is apply_linear.
ad::Var apply_linear_transpose(const std::shared_ptr<const LinearMap>& map, const ad::Var& y);

/// A LinearMap stored as a dense matrix: output_shape = matrix.shape()
/// without its last axis, input_shape = {matrix.shape().back()}. For the
/// parametrizations, whose matrices are n_wall x 2 x n_design.
class DenseMap final : public LinearMap {
 public:
  /// `matrix` has rank >= 2; it is shared, not copied, and must not be
  /// modified afterwards.
  DenseMap(Tensor matrix, std::string name);
  Shape input_shape() const override;
  Shape output_shape() const override;
  Tensor apply(const Tensor& x) const override;
  Tensor apply_transpose(const Tensor& y) const override;
  std::string name() const override { return name_; }
  const Tensor& matrix() const noexcept { return matrix_; }

 private:
  Tensor matrix_;
  index_t rows_ = 0, cols_ = 0;
  std::string name_;
};

}  // namespace camber::design
