/// @file
/// camber::shard::DeviceMesh — the ranks of a communicator arranged as an
/// n-d grid with named axes, and Placement — how a tensor is laid out over
/// each of those axes.
///
/// @code
///   auto mesh = shard::DeviceMesh::create(MPI_COMM_WORLD, {{"data", 2}, {"model", 2}});  // 4 ranks
///   mesh->coordinate(0);        // this rank's index along "data"
///   mesh->axis_comm(1);         // the ranks that differ only along "model"
///   shard::Placements p = {shard::Placement::shard(0), shard::Placement::replicate()};
///   // a {batch, features} tensor: rows split over "data", the same on every "model" rank
/// @endcode
///
/// Ranks are laid out row-major over the axes (the last axis varies
/// fastest). Each axis has its own communicator (MPI_Comm_split), owned by
/// the mesh; a mesh is shared (std::shared_ptr) by every tensor and op that
/// uses it, so it lives as long as they do. Creating one is collective.
///
/// Uneven splits: a dimension of n entries split over m ranks gives rank r
/// n / m entries, plus one for r < n mod m (ranks may hold none). A
/// dimension is split by one mesh axis at most.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <camber/core/tensor.hpp>

namespace camber::shard {

class DeviceMesh {
 public:
  /// Collective over `comm`: the axes' sizes must multiply to its size.
  static std::shared_ptr<const DeviceMesh> create(MPI_Comm comm,
                                                  const std::vector<std::pair<std::string, int>>& axes);
  ~DeviceMesh();
  DeviceMesh(const DeviceMesh&) = delete;
  DeviceMesh& operator=(const DeviceMesh&) = delete;

  int ndim() const noexcept { return static_cast<int>(sizes_.size()); }
  int size(int axis) const { return sizes_.at(static_cast<size_t>(axis)); }
  const std::string& name(int axis) const { return names_.at(static_cast<size_t>(axis)); }
  /// The axis called `name`; a bad_input error listing the names if none.
  int axis(const std::string& name) const;
  int coordinate(int axis) const { return coords_.at(static_cast<size_t>(axis)); }
  MPI_Comm axis_comm(int axis) const { return axis_comms_.at(static_cast<size_t>(axis)); }
  MPI_Comm comm() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  std::string describe() const;  ///< e.g. "{data: 2, model: 2}"

 private:
  DeviceMesh() = default;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  std::vector<std::string> names_;
  std::vector<int> sizes_, coords_;
  std::vector<MPI_Comm> axis_comms_;
};
using MeshPtr = std::shared_ptr<const DeviceMesh>;

/// The layout of a tensor along one mesh axis.
struct Placement {
  /// cells: dimension 0 runs over the local cells of a mesh partition
  /// (owned rows, then one layer of ghost rows; sharded_var.hpp).
  enum class Kind { replicate, shard, partial, cells };
  Kind kind = Kind::replicate;
  int dim = -1;  ///< the tensor dimension split, for Kind::shard
  static Placement replicate() { return {Kind::replicate, -1}; }
  static Placement shard(int dim) { return {Kind::shard, dim}; }
  /// A pending sum: the tensor is the sum over the axis's ranks of their values.
  static Placement partial() { return {Kind::partial, -1}; }
  static Placement cells() { return {Kind::cells, 0}; }
  bool is_cells() const noexcept { return kind == Kind::cells; }
  bool is_shard() const noexcept { return kind == Kind::shard; }
  bool is_shard(int d) const noexcept { return kind == Kind::shard && dim == d; }
  bool is_replicate() const noexcept { return kind == Kind::replicate; }
  bool is_partial() const noexcept { return kind == Kind::partial; }
  bool operator==(const Placement& o) const noexcept { return kind == o.kind && dim == o.dim; }
  bool operator!=(const Placement& o) const noexcept { return !(*this == o); }
};
/// One placement per mesh axis.
using Placements = std::vector<Placement>;
std::string to_string(const Placements& p);

/// Entries [offset, offset + count) of a dimension of n entries that rank
/// `index` of `parts` holds (the uneven split above).
struct Chunk {
  index_t offset = 0, count = 0;
};
Chunk chunk(index_t n, int parts, int index);

/// This rank's block of a tensor of `global` shape under `placements`:
/// per dimension, its offset and extent (Shard dims split over their mesh
/// axes in axis order; other dims whole).
struct LocalBlock {
  Shape offset, shape;
};
LocalBlock local_block(const Shape& global, const DeviceMesh& mesh, const Placements& placements);

/// Checks placements against a mesh and a tensor rank (bad_input naming
/// what is wrong). A tensor dimension may be split by one mesh axis at
/// most.
void check_placements(const DeviceMesh& mesh, const Placements& placements, int tensor_rank);

}  // namespace camber::shard
