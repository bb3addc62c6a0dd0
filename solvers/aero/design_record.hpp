/// @file
/// camber::solvers::aero::DesignRecord — what a shape design writes as it
/// runs and when it ends: what `camber optimize` reports, for any
/// ShapeDesign (an airfoil's or a wing's).
///
/// Given to ShapeDesign::run as its hook, it logs a progress line per
/// evaluation (objective, violation, gradient norm, the best so far, and
/// for evaluations solved here CL, the trimmed alpha and the flow's and
/// adjoint's costs), keeps the history rows, writes the baseline gradient
/// `<dir>/<parametrization>_<n>.csv` after the first evaluation and, with
/// `paraview`, each design's flow fields with the objective's surface
/// sensitivity dJ/dn (`<name>_design_<k>.pvtu`, listed in
/// `<name>_designs.pvd`) and its walls' surfaces. A replayed evaluation of
/// a restart is listed again in the series when its fields exist. At the
/// end write_final() writes the history (`<name>_optimizer_history.csv`),
/// its plot (`_optimizer.png`, gnuplot) and the final design
/// (`_final_design.csv`, aero::write_design_file); summary() is the table
/// of baseline and final coefficients and the optimizer's figures.
///
/// @code
///   aero::DesignRecordSettings r;
///   r.name = "naca"; r.dir = "out"; r.objective = "cd";
///   r.parametrization = "hicks_henne"; r.walls = {"airfoil"};
///   aero::DesignRecord record(problem, r, comm);
///   logging::info(record.size_line());
///   for (const std::string& line : record.baseline_lines("")) logging::info(line);
///   const auto result = problem.run(std::ref(record));
///   record.write_final(result);
///   logging::info(record.summary(result, seconds));
/// @endcode
///
/// Collective over `comm` (the design's): every rank calls it alike; files
/// one process writes are rank 0's.
#pragma once

#include <mpi.h>

#include <sstream>
#include <string>
#include <vector>

#include <camber/io/pvd_series.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/solvers/aero/shape_design.hpp>

namespace camber::solvers::aero {

struct DesignRecordSettings {
  std::string name = "design";        ///< stem of the output files
  std::string dir = ".";              ///< their folder (exists)
  std::string objective = "cd";       ///< the objective's name in lines and files
  std::string parametrization = "shape";  ///< stem of the baseline gradient's file
  std::vector<std::string> walls;     ///< the walls written for ParaView
  bool paraview = true;
  /// A wing's spanwise stations (eta in (0, 1)) whose wall pressure
  /// write_wing_stations() and write_final_wing() write
  /// (design_outputs.hpp); empty: none.
  std::vector<double> station_etas;
  std::string checkpoint;             ///< named in the restart line
};

class DesignRecord {
 public:
  DesignRecord(ShapeDesign& problem, DesignRecordSettings settings, MPI_Comm comm);

  /// The problem's size, before anything is solved: "C cells on R ranks,
  /// N design variables (P[, and alpha]), objective O" (P the
  /// parametrization's name, O the objective's) and the number of
  /// operating points averaged.
  std::string size_line() const;
  /// The baseline, one line each: CL, CD, CM of the first point followed
  /// by `geometry` (the geometry's own figures) and the flow's Newton
  /// steps and seconds; CL, CD, CM of every further point; the lift each
  /// point holds. Collective: solves the baseline on the first call
  /// (ShapeDesign::baseline).
  std::vector<std::string> baseline_lines(const std::string& geometry) const;
  /// The hook of ShapeDesign::run.
  void operator()(const opt::Record& r, const DesignCosts* costs);
  /// The history, its plot and the final design (rank 0). Returns, the
  /// same on every rank, the paths the record wrote: the baseline gradient
  /// (when this run solved the baseline), the ParaView series (with
  /// paraview), the history, its plot (when gnuplot made it) and the final
  /// design. Collective.
  std::vector<std::string> write_final(const ShapeDesignResult& result) const;
  /// Baseline against final (CL, CD, CM, alpha; the fixed-lift and
  /// multi-point rows) then `geometry_rows` (the geometry's own), then the
  /// optimizer's evaluations, violation, stop and the wall time.
  std::string summary(const ShapeDesignResult& result, const std::string& geometry_rows,
                      double seconds) const;

 private:
  // The history, its plot and the final design, on rank 0; whether the
  // plot was made.
  bool write_history(const ShapeDesignResult& result) const;

  ShapeDesign& problem_;
  DesignRecordSettings settings_;
  MPI_Comm comm_;
  io::PvdSeries series_;
  std::ostringstream csv_;
  int replayed_ = 0;
  std::vector<std::string> files_;  // written during the run
};

/// The rows of a design's summary that list the files it wrote: "outputs"
/// and the first path, then one path a row, aligned with the summary's
/// columns.
std::string output_rows(const std::vector<std::string>& files);

}  // namespace camber::solvers::aero
