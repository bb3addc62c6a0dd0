/// @file
/// camber::io::H5File — parallel HDF5 files for checkpoints and large fields.
///
/// Every rank of a communicator opens the same file through MPI-IO and takes
/// part in every call. A distributed tensor is stored as one global dataset:
/// rank r holds a block of rows (axis 0) and the blocks are stacked in rank
/// order,
///
/// @code
///   global shape = {sum_r n_r, d1, ..., dk},   rank r's rows start at
///   offset_r = n_0 + ... + n_{r-1}             (an MPI_Exscan),
/// @endcode
///
/// with collective MPI-IO transfers. Reading chooses its own distribution, so
/// a file written on 64 ranks restarts on 48 or on 1.
///
/// @code
///   {
///     camber::io::H5File out("out/checkpoint.h5", camber::io::Mode::create, comm);
///     out.write("fields/temperature", my_rows);        // {n_local, 3}
///     out.set_attribute("", "time", 0.25);               // on the file root
///     out.set_attribute("fields/temperature", "units", "K");
///     out.close();                                       // commit (collective)
///   }
///   camber::io::H5File in("out/checkpoint.h5", camber::io::Mode::read, comm);
///   camber::Tensor mine = in.read("fields/temperature");        // even blocks
///   camber::Tensor all = in.read_all("fields/temperature");     // every row
///   double t = in.attribute<double>("", "time");
/// @endcode
///
/// Atomic writes. Mode::create writes "<path>.tmp"; close() (or the
/// destructor) closes it and rank 0 renames it to `path` after a barrier. A
/// crash, or an exception leaving the H5File's scope, never touches `path`:
/// the previous checkpoint stays intact and a stale "<path>.tmp" may remain.
/// After such an exception the file is abandoned, not closed, since closing
/// is collective and the other ranks may not be there (see <camber/core/runtime.hpp>:
/// a rank-local error ends the job with MPI_Abort); HDF5 releases it at
/// MPI_Finalize.
///
/// Collective calls. Every member function is collective over the file's
/// communicator: all ranks call it, in the same order, with the same names
/// and attribute values. Argument errors (a missing dataset, ranks that
/// disagree on a shape) are agreed on before any HDF5 transfer, so every
/// rank throws the same camber::Error and none hangs; HDF5 failures carry
/// HDF5's error stack. Names are paths from the root ("fields/temperature");
/// missing groups are created. Values are stored as 64-bit IEEE doubles.
///
/// Limitations: a file is written once (Mode::create replaces it), no
/// appending to or overwriting of datasets; no chunking or compression.
/// Data only: for differentiable tensors, write their values.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/tensor.hpp>

namespace camber::io {

enum class Mode {
  create,  ///< new file (replacing one at the same path when closed)
  read,    ///< existing file, read-only
};

/// Rows [offset, offset + count) of an axis of n_rows rows, split as evenly
/// as possible over n_ranks ranks in rank order (the first n_rows % n_ranks
/// ranks get one row more). What H5File::read(name) gives each rank.
struct RowBlock {
  index_t offset = 0;
  index_t count = 0;
};
RowBlock even_row_block(index_t n_rows, int rank, int n_ranks);

class H5File {
 public:
  /// Opens `path` on every rank of `comm` (collective; the communicator is
  /// duplicated, so the caller may free its own). Mode::create creates parent
  /// directories and writes "<path>.tmp"; Mode::read fails with a clear error
  /// (ErrorKind::bad_input) if `path` is missing or not an HDF5 file.
  H5File(const std::string& path, Mode mode, MPI_Comm comm = MPI_COMM_WORLD);
  /// Closes (and in Mode::create commits) as close() does, unless an
  /// exception is propagating: then the file is abandoned (see above).
  ~H5File();
  H5File(H5File&&) noexcept;
  H5File& operator=(H5File&&) noexcept;
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;

  /// The file's final path (not the temporary one).
  const std::string& path() const;
  Mode mode() const;
  /// The file's own (duplicated) communicator.
  MPI_Comm comm() const;
  bool is_open() const;

  /// Closes the file; in Mode::create renames "<path>.tmp" to `path` (rank 0,
  /// after a barrier) and returns once the file is in place on every rank.
  /// Prefer it to the destructor: errors surface here as camber::Error.
  void close();

  // ---- Datasets ----------------------------------------------------------

  /// Writes a tensor distributed by rows: this rank's `local` rows, stacked
  /// with the other ranks' in rank order. All ranks must pass tensors of the
  /// same rank (>= 1) and the same extents beyond axis 0; a rank may hold zero
  /// rows. The dataset must not exist yet. Mode::create only.
  void write(const std::string& name, const Tensor& local);
  /// Writes a tensor that every rank holds in full (e.g.\ design variables, a
  /// scalar); rank 0's values are stored. Any rank, including 0.
  void write_replicated(const std::string& name, const Tensor& value);

  /// True if `name` is a dataset in the file.
  bool has_dataset(const std::string& name) const;
  /// The global shape of a dataset.
  Shape shape(const std::string& name) const;
  /// This rank's block of rows in the even distribution (even_row_block).
  Tensor read(const std::string& name) const;
  /// Rows [row_offset, row_offset + row_count) of the dataset, chosen by each
  /// rank freely (overlapping or empty ranges are fine).
  Tensor read(const std::string& name, index_t row_offset, index_t row_count) const;
  /// The whole dataset on every rank (also for scalars, rank-0 datasets).
  Tensor read_all(const std::string& name) const;

  // ---- Attributes --------------------------------------------------------
  //
  // On the file root (object "" or "/"), a group or a dataset. Setting an
  // existing attribute replaces it. Every rank must pass the same value.

  void set_attribute(const std::string& object, const std::string& name,
                     const std::string& value);
  void set_attribute(const std::string& object, const std::string& name,
                     const char* value);
  void set_attribute(const std::string& object, const std::string& name,
                     double value);
  void set_attribute(const std::string& object, const std::string& name,
                     std::int64_t value);
  void set_attribute(const std::string& object, const std::string& name,
                     int value);
  void set_attribute(const std::string& object, const std::string& name,
                     const std::vector<double>& value);

  bool has_attribute(const std::string& object, const std::string& name) const;
  /// Reads an attribute as T: std::string, double, std::int64_t or
  /// std::vector<double>. Integers read as double; a type that does not fit
  /// (a string read as double) is an error naming file, object and attribute.
  template <class T>
  T attribute(const std::string& object, const std::string& name) const;

 private:
  struct Impl;
  /// The destructor's work: close, or abandon during stack unwinding.
  void finish() noexcept;
  Impl& impl() const;

  std::unique_ptr<Impl> impl_;
};

template <>
std::string H5File::attribute<std::string>(const std::string&, const std::string&) const;
template <>
double H5File::attribute<double>(const std::string&, const std::string&) const;
template <>
std::int64_t H5File::attribute<std::int64_t>(const std::string&, const std::string&) const;
template <>
std::vector<double> H5File::attribute<std::vector<double>>(const std::string&,
                                                           const std::string&) const;

}  // namespace camber::io
