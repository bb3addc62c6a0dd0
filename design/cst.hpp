/// @file
/// camber::design::Cst — Kulfan's class/shape transformation (CST) as a
/// perturbation of a 2-D airfoil wall: a linear map design vector -> wall
/// displacement.
///
/// On each surface, with x the chordwise coordinate in [0, 1] and B_{i,n} the
/// Bernstein polynomials of order n:
/// @code
///   C(x)  = x^N1 (1 - x)^N2                       (N1 = 0.5, N2 = 1: round
///                                                  nose, sharp trailing edge)
///   dy(x) = C(x) sum_{i=0..n} a_i B_{i,n}(x)  [+ a_te x]
///   dp    = dy n                                  (n: unit normal to the chord)
/// @endcode
/// Design vector: the n+1 upper coefficients, then the n+1 lower ones, then
/// (with trailing_edge_thickness) a_te for the upper and for the lower
/// surface. "Up" is positive on both surfaces (as for Hicks-Henne): equal
/// upper and lower coefficients shift the camber line and keep the
/// thickness. Since sum_i B_{i,n} = 1, all a_i = 1 give dy = C(x), and
/// a_i = i / n give dy = x C(x).
///
/// @code
///   namespace design = camber::design;
///   design::CstOptions opt;  opt.order = 5;                // 12 design variables
///   design::Cst cst(mesh, {"airfoil"}, opt);
///   camber::ad::Var d = cst.displacement(camber::ad::variable(a));
/// @endcode
///
/// The baseline wall is kept as it is (no fit of CST coefficients to it):
/// design variables are perturbations, and a = 0 is the baseline. On a closed
/// wall the trailing-edge node counts as upper (AirfoilWall), so a_te opens
/// the trailing edge only on an open (blunt) wall. Derivatives as for every
/// ShapeParametrization: one graph node, VJP = basis^T, JVP = basis.
#pragma once

#include <string>
#include <vector>

#include <camber/design/airfoil_wall.hpp>

namespace camber::design {

struct CstOptions {
  int order = 6;           ///< Bernstein order n: n + 1 coefficients per surface
  double n1 = 0.5;         ///< class function exponents: x^N1 (1 - x)^N2
  double n2 = 1.0;
  bool trailing_edge_thickness = false;  ///< two more variables: a_te upper, lower
};

/// C(x) = x^n1 (1 - x)^n2 for x in [0, 1].
double cst_class_function(double x, double n1 = 0.5, double n2 = 1.0);

class Cst : public ShapeParametrization {
 public:
  /// Throws camber::Error(bad_input) for order < 0 or negative exponents.
  Cst(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers,
      const CstOptions& options = {});
  Cst(AirfoilWall wall, const CstOptions& options = {});

  const CstOptions& options() const noexcept { return options_; }
  /// Index in the design vector of coefficient i of `surface`.
  index_t coefficient_index(Surface surface, int i) const;
  /// Index of a_te of `surface` (needs trailing_edge_thickness).
  index_t trailing_edge_index(Surface surface) const;

 private:
  CstOptions options_;
};

}  // namespace camber::design
