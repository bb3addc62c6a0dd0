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

/// The spanwise load of a 3-D wing: the pressure force of the wall faces
/// in each of `strips` equal strips of y in [0, b] (b the walls' largest
/// y; a face's force shared among the strips it crosses by the fraction of
/// its area in each), per unit span and over the free stream's dynamic
/// pressure, so that `lift` is the local chord times the section's lift
/// coefficient, c cl(y), in the mesh's length unit. Lift and drag are
/// normal and parallel to the free stream of the discretization's flow
/// (its alpha_deg).
struct SpanLoad {
  double semi_span = 0.0;  ///< b
  std::vector<double> y_lo, y_hi, lift, drag;
};

/// Lifting-line theory's view of a load: the loading written as
/// c cl(y) = 4 b sum_k A_{2k-1} sin((2k - 1) theta), y = b cos theta (a
/// symmetric wing), fitted by least squares to the strips' means; the span
/// efficiency e = 1 / (1 + sum_{k>1} (2k - 1) (A_{2k-1} / A_1)^2) (1 for
/// the elliptic load, which is A_1's term alone), and the largest gap
/// between the strips' load and the elliptic one of the same lift, over
/// the largest load.
struct SpanEfficiency {
  std::vector<double> a;  ///< A_1, A_3, ...
  double e = 0.0;
  double elliptic_gap = 0.0;
};

/// The load of the walls' faces. Collective; every rank gets it. The mesh
/// must be 3-D and strips >= 1 (bad_input otherwise).
SpanLoad span_load(const euler::Discretization& disc, const Tensor& U,
                   const std::vector<std::string>& walls, int strips);
/// The fit with `terms` odd harmonics (1 <= terms, at most the strips).
SpanEfficiency span_efficiency(const SpanLoad& load, int terms);

/// Reference pressures at stations (an experiment's orifices): a CSV file
/// with the header `eta,x_over_c,cp,side` (side 1 upper, -1 lower, 0 a
/// leading-edge orifice), lines starting with '#' ignored; x and z are left
/// 0. Throws camber::Error(bad_input) naming the file and line for a
/// missing file, header or column, a value that is not a number, eta or
/// x/c outside [0, 1], or a side other than -1, 0, 1.
std::vector<SectionPoint> read_section_reference(const std::string& path);

/// How computed station pressures compare with reference ones at a station.
struct SectionComparison {
  double eta = 0.0;
  int compared = 0;  ///< reference points on a side, inside the computed x/c range
  int skipped = 0;   ///< the others (leading-edge orifices, points beyond the ends)
  double rms = 0.0, max_abs = 0.0;  ///< of computed - reference Cp
  double max_at = 0.0;              ///< x/c of the largest difference
  int max_side = 0;
};

/// For each station of `reference` (in its order) that `computed` has (eta
/// equal to 1e-9): the computed Cp of the same side, linear in x/c between
/// the computed points, at each reference point's x/c, against its Cp.
/// Leading-edge orifices (side 0) and points outside the computed side's
/// x/c range are skipped and counted. Stations only one of them has are
/// left out.
std::vector<SectionComparison> compare_sections(const std::vector<SectionPoint>& computed,
                                                const std::vector<SectionPoint>& reference);

}  // namespace camber::solvers::aero
