/// @file
/// camber::io::PvdSeries — a ParaView time series (.pvd collection file).
///
/// A .pvd file lists data files with a time value each; ParaView opens it as
/// one data set with a time slider. Use it for time steps, pseudo-time
/// iterations or optimisation designs (time = design iteration).
///
/// @code
///   camber::io::PvdSeries series("out/flow.pvd", comm);
///   for (int step = 0; step < n_steps; ++step) {
///     const std::string name = camber::io::series_file_name("flow", step);  // "flow_0003"
///     camber::io::write_pvtu("out/" + name, piece, comm);
///     series.add(time, name + ".pvtu");       // relative to out/
///   }
/// @endcode
///
/// Each add() rewrites the whole .pvd on rank 0, atomically (temporary file
/// then rename): after a crash it lists exactly the steps completed. Add a
/// step only after its data files are written, so the .pvd never names a
/// missing file. Entries are kept in the order added; a time already listed
/// is replaced (a restarted run rewriting a step).
///
/// Limitations: one part per time step; starting a series over an existing
/// .pvd replaces it (the old entries are not read back).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace camber::io {

class PvdSeries {
 public:
  struct Entry {
    double time = 0.0;
    std::string file;  ///< relative to the .pvd's folder
  };

  /// Writes nothing until the first add(). `comm` must outlive the series.
  explicit PvdSeries(std::string path, MPI_Comm comm = MPI_COMM_WORLD);

  /// Collective: adds (or replaces) the entry for `time` and rewrites the
  /// file on rank 0; every rank returns once it is in place, and a failure
  /// throws camber::Error on every rank. `relative_file` is relative to the
  /// .pvd's folder (as ParaView resolves it).
  void add(double time, const std::string& relative_file);

  const std::string& path() const { return path_; }
  const std::vector<Entry>& entries() const { return entries_; }
  /// The .pvd text for the current entries.
  std::string xml() const;

 private:
  std::string path_;
  MPI_Comm comm_;
  std::vector<Entry> entries_;
};

/// "<base>_<index>" with the index zero-padded to `digits` digits, so that
/// files sort in step order: series_file_name("flow", 3) == "flow_0003".
std::string series_file_name(const std::string& base, long long index, int digits = 4);

}  // namespace camber::io
