#include <camber/shard/device_mesh.hpp>

#include <algorithm>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::shard {

MeshPtr DeviceMesh::create(MPI_Comm comm, const std::vector<std::pair<std::string, int>>& axes) {
  std::shared_ptr<DeviceMesh> m(new DeviceMesh());
  const int size = comm_size(comm);
  long product = 1;
  for (const auto& [name, n] : axes) {
    CAMBER_INPUT_REQUIRE(n >= 1, "device mesh: axis '" << name << "' has size " << n);
    for (const std::string& other : m->names_)
      CAMBER_INPUT_REQUIRE(other != name, "device mesh: two axes are called '" << name << "'");
    m->names_.push_back(name);
    m->sizes_.push_back(n);
    product *= n;
  }
  CAMBER_INPUT_REQUIRE(!axes.empty() && product == size,
                       "device mesh " << "of " << product << " ranks on a communicator of " << size
                                      << "; the axes' sizes must multiply to the rank count");
  CAMBER_CHECK_MPI(MPI_Comm_dup(comm, &m->comm_));
  m->rank_ = comm_rank(m->comm_);
  // Row-major: the last axis varies fastest.
  int rest = m->rank_;
  m->coords_.assign(axes.size(), 0);
  for (size_t a = axes.size(); a-- > 0;) {
    m->coords_[a] = rest % m->sizes_[a];
    rest /= m->sizes_[a];
  }
  for (size_t a = 0; a < axes.size(); ++a) {
    // Colour: the rank with this axis's coordinate set to 0.
    int colour = 0;
    for (size_t b = 0; b < axes.size(); ++b) colour = colour * m->sizes_[b] + (b == a ? 0 : m->coords_[b]);
    MPI_Comm c = MPI_COMM_NULL;
    CAMBER_CHECK_MPI(MPI_Comm_split(m->comm_, colour, m->coords_[a], &c));
    m->axis_comms_.push_back(c);
  }
  return m;
}

DeviceMesh::~DeviceMesh() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (MPI_Comm& c : axis_comms_) MPI_Comm_free(&c);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

int DeviceMesh::axis(const std::string& name) const {
  for (size_t a = 0; a < names_.size(); ++a)
    if (names_[a] == name) return static_cast<int>(a);
  throw_bad_input("device mesh " + describe() + " has no axis '" + name + "'");
}

std::string DeviceMesh::describe() const {
  std::ostringstream s;
  s << "{";
  for (size_t a = 0; a < names_.size(); ++a) s << (a ? ", " : "") << names_[a] << ": " << sizes_[a];
  s << "}";
  return s.str();
}

std::string to_string(const Placements& p) {
  std::ostringstream s;
  s << "[";
  for (size_t a = 0; a < p.size(); ++a) {
    s << (a ? ", " : "");
    if (p[a].is_shard())
      s << "Shard(" << p[a].dim << ")";
    else if (p[a].is_partial())
      s << "Partial";
    else if (p[a].is_cells())
      s << "Cells";
    else
      s << "Replicate";
  }
  s << "]";
  return s.str();
}

Chunk chunk(index_t n, int parts, int index) {
  const index_t base = n / parts, extra = n % parts;
  Chunk c;
  c.count = base + (index < extra ? 1 : 0);
  c.offset = base * index + std::min<index_t>(index, extra);
  return c;
}

LocalBlock local_block(const Shape& global, const DeviceMesh& mesh, const Placements& placements) {
  LocalBlock b;
  b.offset.assign(global.size(), 0);
  b.shape = global;
  for (int a = 0; a < mesh.ndim(); ++a) {
    const Placement& p = placements[static_cast<size_t>(a)];
    if (!p.is_shard()) continue;
    const size_t d = static_cast<size_t>(p.dim);
    const Chunk c = chunk(b.shape[d], mesh.size(a), mesh.coordinate(a));
    b.offset[d] += c.offset;
    b.shape[d] = c.count;
  }
  return b;
}

void check_placements(const DeviceMesh& mesh, const Placements& placements, int tensor_rank) {
  CAMBER_INPUT_REQUIRE(static_cast<int>(placements.size()) == mesh.ndim(),
                       "sharding: " << placements.size() << " placements for the " << mesh.ndim()
                                    << "-d device mesh " << mesh.describe() << "; give one per mesh axis");
  for (size_t a = 0; a < placements.size(); ++a) {
    const Placement& p = placements[a];
    CAMBER_INPUT_REQUIRE(!p.is_shard() || (p.dim >= 0 && p.dim < tensor_rank),
                         "sharding: Shard(" << p.dim << ") of a tensor with " << tensor_rank << " dimensions");
    for (size_t b = 0; b < a; ++b)
      CAMBER_INPUT_REQUIRE(!p.is_shard() || !placements[b].is_shard(p.dim),
                           "sharding: dimension " << p.dim << " is split by two mesh axes ("
                                                  << mesh.name(static_cast<int>(b)) << " and "
                                                  << mesh.name(static_cast<int>(a)) << "); split it by one");
  }
}

}  // namespace camber::shard
