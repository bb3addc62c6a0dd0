/// @file
/// The files that describe a finished shape design's geometry and flow:
/// what `camber optimize` writes after the optimizer stops, beside
/// DesignRecord's history and final design, as library calls.
///
/// A wing (WingDesign), write_final_wing():
///  - solves the flow again at the best design (from the flow the run
///    ended with: at most a few Newton steps);
///  - `<dir>/<name>_final.su2`: the best design's mesh (every rank writes
///    its part; mesh::write_su2);
///  - `<name>_final_stations.csv` (and its plot): the wall pressure at the
///    spanwise stations `station_etas` (aero::wing_sections,
///    write_station_csv); write_wing_stations() writes the baseline's,
///    `<name>_baseline_stations.csv`, from the flow solved before the run;
///  - with `paraview`: `<name>_final.pvtu` (the flow's fields) and
///    `<name>_final_<wall>.pvtp` for each wall;
///  - `<name>_thickness.csv` (eta,x_over_c,x,y,t0,t,ratio): the thickness
///    at every station of design::WingThickness, baseline and best design,
///    and their ratio t / t0.
/// It returns the smallest ratio t / t0 and the paths written.
///
/// An airfoil (AirfoilDesign), write_final_airfoil(): `<name>_final.dat`,
/// the best design's wall in Selig order (titled `<name> (camber
/// optimize, final design)`), and `<name>_final.su2`, its deformed mesh.
///
/// @code
///   aero::DesignRecordSettings r;
///   r.name = "wing"; r.dir = "out"; r.walls = {"wing"};
///   r.station_etas = {0.2, 0.65, 0.95};
///   aero::write_wing_stations(problem, r, "baseline");   // the flow just solved
///   aero::DesignRecord record(problem, r, comm);
///   const aero::WingDesignResult result = problem.run(std::ref(record));
///   record.write_final(result);
///   const aero::WingOutputs out = aero::write_final_wing(problem, result, r);
///   // out.thinnest_ratio: min over the stations of t / t0
/// @endcode
///
/// Collective over the design's communicator (its flow's mesh's): every
/// rank calls them alike; files one process writes are rank 0's. The
/// folder `dir` must exist. DesignRecord writes the history, its plot and
/// the final design file (DesignRecord::write_final).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/aero/design_record.hpp>
#include <camber/solvers/aero/wing_design.hpp>

namespace camber::solvers::aero {

/// What write_final_wing() wrote and found.
struct WingOutputs {
  /// min over the thickness stations of t / t0 (infinity: no stations).
  double thinnest_ratio = std::numeric_limits<double>::infinity();
  /// The paths written, each once, the same on every rank.
  std::vector<std::string> files;
};

/// The wall pressure of the flow the design holds now (problem.flow()) at
/// the stations settings.station_etas: `<dir>/<name>_<which>_stations.csv`
/// and its plot. Nothing when there are no stations. Returns the paths
/// written. Collective.
std::vector<std::string> write_wing_stations(WingDesign& problem, const DesignRecordSettings& settings,
                                             const std::string& which);

/// The wing's final outputs (see above) for `result`, the last run() of
/// `problem`: the flow at the best design, its mesh, its station
/// pressures, its ParaView fields (settings.paraview) and the thickness
/// table. Collective.
WingOutputs write_final_wing(WingDesign& problem, const WingDesignResult& result,
                             const DesignRecordSettings& settings);

/// The airfoil's final outputs for `result`, the last run() of `problem`:
/// the Selig `.dat` of the final wall and the deformed mesh. Returns the
/// paths written. Collective.
std::vector<std::string> write_final_airfoil(AirfoilDesign& problem, const AirfoilDesignResult& result,
                                             const DesignRecordSettings& settings);

}  // namespace camber::solvers::aero
