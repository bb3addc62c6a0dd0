/// @file
/// camber::design::HicksHenne — Hicks-Henne bump functions on a 2-D airfoil
/// wall, as a linear map design vector -> wall displacement.
///
/// Bump k, with peak location x_k in (0, 1) on one surface, moves the wall
/// nodes of that surface normal to the chord by a_k h_k(x):
/// @code
///   h_k(x) = sin^3(pi x^(ln 0.5 / ln x_k)),   x = chordwise coordinate in [0, 1]
///   dp_i   = n * sum over bumps k on surface(i) of a_k h_k(x_i)
/// @endcode
/// h_k(0) = h_k(1) = 0 and h_k peaks at x_k with h_k(x_k) = 1 (unit
/// amplitude). n is the unit normal to the chord (AirfoilWall), "up" on both
/// surfaces: a positive a_k thickens the upper surface and thins the lower.
/// For a chord along x, n = (0, 1): the displacement is in y only.
///
/// @code
///   namespace design = camber::design;
///   auto bumps = design::evenly_spaced_bumps(5);            // 5 per surface
///   design::HicksHenne hh(mesh, {"airfoil"}, bumps);        // 10 design variables
///   camber::Tensor d = hh.displacement(a);                  // (n_wall, 2)
///   camber::ad::Var dv = hh.displacement(camber::ad::variable(a));  // in the graph
///   design::MeshDeformation idw(mesh, {"airfoil"});         // then the volume mesh
/// @endcode
///
/// Derivatives: the map is linear; displacement(Var) is one graph node with
/// VJP = basis^T and JVP = basis (reverse and forward mode, any order). For
/// the deformed volume mesh see design/mesh_deformation.hpp
/// (deformed_coordinates).
#pragma once

#include <string>
#include <vector>

#include <camber/design/airfoil_wall.hpp>

namespace camber::design {

struct HicksHenneBump {
  double peak = 0.5;  ///< x_k in (0, 1), chord fractions
  Surface surface = Surface::upper;
};

/// h(x) = sin^3(pi x^(ln 0.5 / ln peak)) for x in (0, 1), 0 outside.
double hicks_henne_bump(double x, double peak);

/// n_per_surface bumps on each surface, peaks at k / (n_per_surface + 1),
/// k = 1 .. n_per_surface; upper surface first.
std::vector<HicksHenneBump> evenly_spaced_bumps(int n_per_surface);

class HicksHenne : public ShapeParametrization {
 public:
  /// Design variable k is the amplitude of bumps[k] (length units of the
  /// mesh). Throws camber::Error(bad_input) for a peak outside (0, 1), no
  /// bumps, or a wall AirfoilWall rejects.
  HicksHenne(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers,
             std::vector<HicksHenneBump> bumps);
  HicksHenne(AirfoilWall wall, std::vector<HicksHenneBump> bumps);

  const std::vector<HicksHenneBump>& bumps() const noexcept { return bumps_; }

 private:
  std::vector<HicksHenneBump> bumps_;
};

}  // namespace camber::design
