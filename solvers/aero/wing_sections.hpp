/// @file
/// Surface pressure along spanwise stations of a 3-D wing: the wall faces
/// cut by the planes y = eta b, where b is the semi-span (the largest y of
/// the wall nodes; the wing's root on a symmetry plane y = 0, as the ONERA
/// M6 experiment's stations are given). What experiments report (Cp
/// against x/c at fixed eta) from a cell-centred 3-D solution.
///
/// @code
///   const auto points = aero::wing_sections(disc, U, {"wing"}, {0.2, 0.44, 0.65});
///   // rank 0: (eta, x/c, x, z, Cp, side) of every wall face the planes cut
/// @endcode
///
/// Each wall face that a plane cuts gives one point: the midpoint of the
/// cut segment (edges interpolated linearly), the face's pressure as the
/// forces take it (Discretization::wall_face_pressures: the cell's at
/// first order, reconstructed at the face midpoint at second), and its side (+1 upper: the body's
/// outward normal points to +z; -1 lower). x/c runs from the station's
/// smallest x (0) to its largest (1) among the cut points. Collective;
/// rank 0 receives every rank's points, sorted by eta, side and x.
#pragma once

#include <string>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::aero {

struct SectionPoint {
  double eta = 0.0;       ///< station, a fraction of the semi-span
  double x_over_c = 0.0;  ///< chordwise position at the station, 0 to 1
  double x = 0.0, z = 0.0;
  double cp = 0.0;
  int side = 0;  ///< +1 upper surface, -1 lower
};

/// The points of every station in `etas` (each in (0, 1)) on the faces of
/// the markers `walls`. The mesh must be 3-D (bad_input otherwise).
std::vector<SectionPoint> wing_sections(const euler::Discretization& disc, const Tensor& U,
                                        const std::vector<std::string>& walls,
                                        const std::vector<double>& etas);

}  // namespace camber::solvers::aero
