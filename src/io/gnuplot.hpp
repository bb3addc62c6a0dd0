/// @file
/// camber::io::run_gnuplot — PNG plots from CSV files already written, with
/// Debian's gnuplot (gnuplot-nox), when it is installed.
///
/// A plot is a view of results already on disk, so a missing or failing
/// gnuplot is a warning, not a failed run: run_gnuplot() writes the script
/// beside the plots (atomically), runs it with its error output in
/// `<script>.log`, and returns whether the plots were made.
///
/// @code
///   std::ostringstream gp;
///   gp << "set terminal pngcairo size 900,600 noenhanced\n"
///      << "set datafile separator ','\nset output 'out/history.png'\n"
///      << "plot 'out/history.csv' using 1:2 with lines\n";
///   const bool png = camber::io::run_gnuplot("out/history.gp", gp.str());
/// @endcode
///
/// One process runs it (rank 0 of a run); paths in the script are the
/// caller's. Not for untrusted script text: gnuplot can run commands.
#pragma once

#include <string>

namespace camber::io {

/// Writes `script_text` to `script_path` and runs gnuplot on it. false,
/// with a warning in the log, when gnuplot is not on the PATH or fails
/// (its messages are then in `<script_path>.log`).
bool run_gnuplot(const std::string& script_path, const std::string& script_text);

/// Whether a gnuplot is on the PATH.
bool gnuplot_available();

}  // namespace camber::io
