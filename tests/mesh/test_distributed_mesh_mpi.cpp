// mesh::DistributedMesh at 1, 2 and 4 ranks on the ADODG NACA 0012 O-grid
// (256 x 80 cells, first cell 1e-5 chords, far field at 50 chords).
//
// References are the serial computation on the global mesh (the same
// kernels on every cell, so per-cell values agree to the last bit and sums
// to round-off), central finite differences, and the files read back by
// VTK's readers, HDF5 and, where installed, ParaView itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <camber/autodiff/dual.hpp>
#include <camber/mesh/cell_faces.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/config.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/tensor.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/shared_data.hpp"
#include "shuffled_box.hpp"

#if CAMBER_WITH_IO
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkPolyData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPPolyDataReader.h>
#include <vtkXMLPUnstructuredGridReader.h>

#include <camber/io/hdf5_file.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/io/xdmf_writer.hpp>
#endif

namespace fs = std::filesystem;
namespace mesh = camber::mesh;
using camber::index_t;
using Dual2 = camber::ad::Dual<double, 2>;

namespace {

using camber::test::rank;
using camber::test::size;
using camber::test::world;

constexpr int cells_around = 256;
constexpr int cells_normal = 80;
constexpr std::int64_t n_cells_expected = cells_around * cells_normal;  // 20,480

// Data shared by the tests, built on first use (the construction of the
// distributed mesh is collective, and every rank runs every test in the
// same order) and released before Kokkos is finalized, by the environment
// below: Views must not outlive Kokkos.
struct Shared {
  std::optional<mesh::Mesh> global;
  std::optional<mesh::DistributedMesh> distributed;
  std::optional<Kokkos::View<double*, Kokkos::HostSpace>> wall_distance;
};
Shared& shared() {
  static Shared data;
  return data;
}
class ReleaseSharedMeshes : public ::testing::Environment {
 public:
  void TearDown() override { shared() = Shared{}; }
};
// GoogleTest owns registered environments.
[[maybe_unused]] ::testing::Environment* const release_shared_meshes =
    ::testing::AddGlobalTestEnvironment(new ReleaseSharedMeshes);

// The global mesh, generated identically on every rank.
const mesh::Mesh& global_mesh() {
  if (!shared().global)
    shared().global = mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), cells_around,
                                          cells_normal, 1e-5, 50.0);
  return *shared().global;
}

mesh::DistributedMesh& distributed() {
  if (!shared().distributed) shared().distributed.emplace(global_mesh(), world());
  return *shared().distributed;
}

template <class View>
auto on_host(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

double sum_over_ranks(double x) {
  double total = 0;
  MPI_Allreduce(&x, &total, 1, MPI_DOUBLE, MPI_SUM, world());
  return total;
}

// Sum of cell volumes in ascending cell order (serial reference).
double serial_total_volume() {
  const auto v = on_host(mesh::compute_geometry(global_mesh()).cell_volume);
  double total = 0;
  for (index_t c = 0; c < global_mesh().n_cells(); ++c) total += v(c);
  return total;
}

// Global node ids whose coordinates are nearest to the given points: the
// trailing edge, the leading edge, a node in the field, the far field.
std::vector<std::int64_t> probe_nodes() {
  const auto x = on_host(global_mesh().coords());
  const double targets[][2] = {{1.0, 0.0}, {0.0, 0.0}, {0.5, 0.3}, {-49.5, 0.0}, {0.5, 60.0}};
  std::vector<std::int64_t> nodes;
  for (const auto& t : targets) {
    std::int64_t best = 0;
    double best_d = std::numeric_limits<double>::max();
    for (index_t n = 0; n < global_mesh().n_nodes(); ++n) {
      const double d = std::hypot(x(n, 0) - t[0], x(n, 1) - t[1]);
      if (d < best_d) best_d = d, best = n;
    }
    nodes.push_back(best);
  }
  return nodes;
}

// d(sum of cell areas over `cells` cells of m)/d(x, y of node `node`), by
// forward mode with Dual coordinates (node < 0: no node seeded).
std::array<double, 2> area_gradient(const mesh::Mesh& m, index_t node, index_t cells) {
  const auto x = on_host(m.coords());
  Kokkos::View<Dual2**> xd("x", m.n_nodes(), 2);
  auto xh = Kokkos::create_mirror_view(xd);
  for (index_t n = 0; n < m.n_nodes(); ++n)
    for (int d = 0; d < 2; ++d) {
      xh(n, d) = Dual2(x(n, d));
      if (n == node) xh(n, d).der(d) = 1.0;
    }
  Kokkos::deep_copy(xd, xh);
  const auto v = on_host(mesh::compute_geometry(m, xd).cell_volume);
  std::array<double, 2> g{0.0, 0.0};
  for (index_t c = 0; c < cells; ++c)
    for (int d = 0; d < 2; ++d) g[d] += v(c).der(d);
  return g;
}

}  // namespace

// v(c) = value for c in [begin, end). (A device lambda may not sit in a TEST
// body, whose class is private to GoogleTest: nvcc rejects that.)
void set_rows(const Kokkos::View<double*>& v, index_t begin, index_t end, double value) {
  Kokkos::parallel_for(
      "set_rows", Kokkos::RangePolicy<>(begin, end),
      KOKKOS_LAMBDA(const index_t c) { v(c) = value; });
}

// The SU2 QuickStart mesh (shared data, not copied into the project), read
// once on rank 0 and distributed: counts from the file's headers, the area
// summed over ranks against the serial one, and the halo exchange applied in
// place to the geometry's own View through a zero-copy Tensor.
TEST(DistributedMeshRead, QuickStartMeshIsReadOnceAndDistributed) {
  const std::string path = camber::test::shared_mesh("naca0012_inviscid_su2_quickstart.su2");
  CAMBER_NEED_SHARED_FILE(path);
  mesh::DistributedMesh dm = mesh::DistributedMesh::read(path, world());
  EXPECT_EQ(dm.n_global_cells(), 10216);
  EXPECT_EQ(dm.n_global_nodes(), 5233);
  const double serial = mesh::total_volume(mesh::read_mesh(path));
  EXPECT_NEAR(mesh::total_volume(dm), serial, 1e-12 * serial);

  const mesh::Geometry g = mesh::compute_geometry(dm.local());
  const auto expected = on_host(g.cell_volume);
  camber::Tensor vol = camber::Tensor::from_view(g.cell_volume);
  ASSERT_EQ(vol.data(), g.cell_volume.data());
  // Spoil the ghost rows through the Tensor; the exchange restores them
  // from their owners, in g.cell_volume itself.
  const index_t n_owned = dm.n_owned_cells(), n_local = dm.n_local_cells();
  set_rows(g.cell_volume, n_owned, n_local, -1.0);
  dm.halo().forward(vol);
  const auto after = on_host(g.cell_volume);
  for (index_t c = 0; c < n_local; ++c)
    ASSERT_NEAR(after(c), expected(c), 1e-15 * std::abs(expected(c))) << "cell " << c;
  EXPECT_NEAR(camber::par::sum_owned(vol, dm.distribution()), serial, 1e-12 * serial);
}

// A bad path is one bad_input error on every rank (collective), naming the
// file: no rank aborts, none hangs.
// Fewer cells than ranks: one bad_input error on every rank (no rank is left
// waiting for the ones that would have no cells).
TEST(DistributedMeshRead, FewerCellsThanRanksIsABadInputErrorOnEveryRank) {
  const mesh::Mesh one_cell = mesh::rectangle(1, 1, 1.0, 1.0);
  if (size() == 1) {
    EXPECT_EQ(mesh::DistributedMesh(one_cell, world()).n_owned_cells(), 1);
    return;
  }
  try {
    (void)mesh::DistributedMesh(one_cell, world());
    ADD_FAILURE() << "expected an error";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
    EXPECT_NE(std::string(e.what()).find("fewer than"), std::string::npos) << e.what();
  }
}

TEST(DistributedMeshRead, BadPathIsABadInputErrorOnEveryRank) {
  for (const std::string path : {"no/such/mesh.su2", "mesh.without_extension"}) {
    try {
      (void)mesh::DistributedMesh::read(path, world());
      ADD_FAILURE() << "expected an error for " << path;
    } catch (const camber::Error& e) {
      EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

namespace {

// A strip of four unit quads, nodes 0..4 along y = 0 and 5..9 along y = 1,
// with markers as a reader would give them (a file name and lines), and a
// mesh-building error expected on every rank from its chunks alone.
mesh::MeshData quad_strip() {
  mesh::MeshData d;
  d.source = "strip.su2";
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 5; ++i) d.add_node(i, j);
  for (index_t i = 0; i < 4; ++i) d.add_cell(mesh::CellType::quad, {i, i + 1, i + 6, i + 5}, 10 + i);
  return d;
}

void expect_error_on_every_rank(const mesh::MeshData& d, const std::string& expected) {
  const int rank = camber::comm_rank(world()), size = camber::comm_size(world());
  try {
    (void)mesh::DistributedMesh(mesh::chunk_of(d, rank, size), world());
    ADD_FAILURE() << "expected an error containing '" << expected << "'";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

}  // namespace

// What only the whole mesh shows is checked where faces meet, from the
// chunks: each problem is one bad_input error on every rank, with the file
// and the marker element's line.
TEST(DistributedMeshChunks, BadFacesAndMarkersFailOnEveryRank) {
  {  // an interior edge (between cells 1 and 2) in a marker
    mesh::MeshData d = quad_strip();
    d.add_marker("wall").add_element({2, 7}, 31);
    expect_error_on_every_rank(d, "strip.su2:31: marker 'wall' element (nodes 2 7) is an "
                                  "interior face, not on the boundary");
  }
  {  // two nodes that are no edge of any cell
    mesh::MeshData d = quad_strip();
    d.add_marker("wall").add_element({0, 9}, 32);
    expect_error_on_every_rank(d, "strip.su2:32: marker 'wall' element (nodes 0 9) is not a "
                                  "face of any cell");
  }
  {  // one boundary edge in two markers
    mesh::MeshData d = quad_strip();
    d.add_marker("inlet").add_element({0, 5}, 33);
    d.add_marker("wall").add_element({5, 0}, 40);
    expect_error_on_every_rank(d, "strip.su2:40: marker 'wall' element (nodes 0 5) is already "
                                  "in marker 'inlet'");
  }
  {  // a fifth cell on the edge 1-6 that cells 0 and 1 share
    mesh::MeshData d = quad_strip();
    const index_t apex = d.add_node(1.2, 0.5);
    d.add_cell(mesh::CellType::triangle, {1, apex, 6}, 14);
    expect_error_on_every_rank(d, "the face with nodes 1 6 is shared by 3 cells");
  }
  {  // a cell of zero area: the error names its line
    mesh::MeshData d = quad_strip();
    d.add_cell(mesh::CellType::triangle, {0, 1, 2}, 15);
    expect_error_on_every_rank(d, "strip.su2:15");
  }
}

// The strip with its boundary marked, from chunks: each rank's markers
// hold just the boundary faces of its owned cells, and over the ranks every
// marked face is counted once.
TEST(DistributedMeshChunks, MarkersFollowTheirCells) {
  mesh::MeshData d = quad_strip();
  auto& bottom = d.add_marker("bottom");
  for (index_t i = 0; i < 4; ++i) bottom.add_element({i + 1, i}, 20 + i);
  d.add_marker("ends").add_element({0, 5}, 30).add_element({4, 9}, 31);
  const int rank = camber::comm_rank(world()), size = camber::comm_size(world());
  ASSERT_LE(size, 4) << "the strip has four cells, at least one per rank";
  const mesh::DistributedMesh dm(mesh::chunk_of(d, rank, size), world());
  EXPECT_EQ(dm.n_global_cells(), 4);
  EXPECT_EQ(dm.n_global_nodes(), 10);
  long counts[2] = {static_cast<long>(dm.owned_marker_faces("bottom").size()),
                    static_cast<long>(dm.owned_marker_faces("ends").size())};
  long total[2] = {0, 0};
  MPI_Allreduce(counts, total, 2, MPI_LONG, MPI_SUM, world());
  EXPECT_EQ(total[0], 4);
  EXPECT_EQ(total[1], 2);
  EXPECT_NEAR(mesh::total_volume(dm), 4.0, 1e-14);
}

// 3-D: SU2's brick of tetrahedra and pyramids (the box [0, 2] x [0, 1]^2),
// read on rank 0 and distributed: every cell owned once, each owned cell
// with all its faces local, the owned volumes summing to 2, the six
// markers' faces each on one rank, ghosts filled with their owners'
// centroids by the halo exchange.
TEST(DistributedMeshRead, BrickOfTetrahedraAndPyramidsIn3D) {
  const std::string path = camber::test::shared_mesh("brick_pyra_ffd_su2_testcases.su2");
  CAMBER_NEED_SHARED_FILE(path);
  const mesh::Mesh global = mesh::read_mesh(path);
  mesh::DistributedMesh dm = mesh::DistributedMesh::read(path, world());
  ASSERT_EQ(dm.local().dim(), 3);
  EXPECT_EQ(dm.n_global_cells(), global.n_cells());
  EXPECT_EQ(dm.local().n_reoriented_cells(), 0);
  std::vector<int> owned(static_cast<std::size_t>(global.n_cells()), 0), total(owned.size());
  for (index_t c = 0; c < dm.n_owned_cells(); ++c) ++owned[dm.cell_global_ids()[c]];
  MPI_Allreduce(owned.data(), total.data(), static_cast<int>(owned.size()), MPI_INT, MPI_SUM,
                world());
  EXPECT_EQ(std::count(total.begin(), total.end(), 1), global.n_cells());

  const auto types = on_host(dm.local().cell_types());
  const auto left = on_host(dm.local().face_left());
  const auto right = on_host(dm.local().face_right());
  std::vector<int> faces_of(static_cast<std::size_t>(dm.n_owned_cells()), 0);
  for (index_t f = 0; f < dm.n_owned_faces(); ++f) {
    ++faces_of[left(f)];
    if (right(f) >= 0 && right(f) < dm.n_owned_cells()) ++faces_of[right(f)];
  }
  for (index_t c = 0; c < dm.n_owned_cells(); ++c)
    ASSERT_EQ(faces_of[c], mesh::n_cell_faces(types(c))) << "owned cell " << c;

  const mesh::Geometry g = mesh::compute_geometry(dm.local());
  const auto v = on_host(g.cell_volume);
  double mine = 0;
  for (index_t c = 0; c < dm.n_owned_cells(); ++c) mine += v(c);
  EXPECT_NEAR(sum_over_ranks(mine), 2.0, 1e-12);

  for (const mesh::Marker& m : global.markers()) {
    const double n = sum_over_ranks(static_cast<double>(dm.owned_marker_faces(m.name).size()));
    EXPECT_EQ(n, static_cast<double>(m.n_faces())) << m.name;
  }

  const auto centroid = on_host(g.cell_centroid);
  camber::Tensor x({dm.n_local_cells(), 3});
  std::vector<double> values(static_cast<std::size_t>(3 * dm.n_local_cells()), -1.0);
  for (index_t c = 0; c < dm.n_owned_cells(); ++c)
    for (int k = 0; k < 3; ++k) values[static_cast<std::size_t>(3 * c + k)] = centroid(c, k);
  x.assign(values);
  dm.halo().forward(x);
  const std::vector<double> after = x.to_vector();
  for (index_t c = dm.n_owned_cells(); c < dm.n_local_cells(); ++c)
    for (int k = 0; k < 3; ++k)
      ASSERT_NEAR(after[static_cast<std::size_t>(3 * c + k)], centroid(c, k), 1e-15)
          << "ghost " << c;
  if (size() > 1) {
    EXPECT_GT(dm.n_local_cells(), dm.n_owned_cells());
  }
}

TEST(DistributedMesh, EveryCellIsOwnedOnce) {
  const auto& dm = distributed();
  ASSERT_EQ(global_mesh().n_cells(), n_cells_expected);
  EXPECT_EQ(dm.n_global_cells(), n_cells_expected);
  std::vector<int> owned(static_cast<std::size_t>(n_cells_expected), 0);
  for (index_t c = 0; c < dm.n_owned_cells(); ++c) ++owned[dm.cell_global_ids()[c]];
  std::vector<int> total(owned.size(), 0);
  MPI_Allreduce(owned.data(), total.data(), static_cast<int>(owned.size()), MPI_INT, MPI_SUM,
                world());
  EXPECT_EQ(std::count(total.begin(), total.end(), 1), n_cells_expected);

  std::int64_t n_owned = dm.n_owned_cells(), sum = 0;
  MPI_Allreduce(&n_owned, &sum, 1, MPI_INT64_T, MPI_SUM, world());
  EXPECT_EQ(sum, n_cells_expected);

  EXPECT_LE(dm.quality().imbalance, 0.05);
  if (size() == 1) {
    EXPECT_EQ(dm.quality().edge_cut, 0);
  }
  if (rank() == 0)
    std::printf("[ partition ] %d ranks: edge cut %lld faces, imbalance %.4f\n", size(),
                static_cast<long long>(dm.quality().edge_cut), dm.quality().imbalance);

  // The local mesh: owned cells, then ghosts; owned faces first.
  EXPECT_EQ(dm.local().n_cells(), dm.n_local_cells());
  EXPECT_EQ(dm.local().n_nodes(), dm.n_local_nodes());
  EXPECT_LE(dm.n_owned_faces(), dm.local().n_faces());
  EXPECT_EQ(dm.local().n_reoriented_cells(), 0);
  const auto left = on_host(dm.local().face_left());
  const auto right = on_host(dm.local().face_right());
  for (index_t f = 0; f < dm.local().n_faces(); ++f) {
    EXPECT_EQ(left(f) < dm.n_owned_cells(), f < dm.n_owned_faces()) << "face " << f;
  }
  // Every face of an owned cell is local, with its neighbour: each owned
  // cell has 4 faces, and every interior one has a right cell.
  std::vector<int> faces_of(static_cast<std::size_t>(dm.n_owned_cells()), 0);
  std::int64_t interior_owned_faces = 0;
  for (index_t f = 0; f < dm.n_owned_faces(); ++f) {
    ++faces_of[left(f)];
    if (right(f) >= 0 && right(f) < dm.n_owned_cells()) ++faces_of[right(f)];
    if (right(f) >= dm.n_owned_cells()) ++interior_owned_faces;  // owned | ghost
  }
  EXPECT_EQ(std::count(faces_of.begin(), faces_of.end(), 4), dm.n_owned_cells());
  // Faces between an owned cell and a ghost, summed over ranks, are the
  // cut edges counted from both sides.
  std::int64_t cut_sides = 0;
  MPI_Allreduce(&interior_owned_faces, &cut_sides, 1, MPI_INT64_T, MPI_SUM, world());
  EXPECT_EQ(cut_sides, 2 * dm.quality().edge_cut);

  // Wall faces: 256 in all, each on one rank.
  std::int64_t wall = static_cast<std::int64_t>(dm.owned_marker_faces("airfoil").size()), n = 0;
  MPI_Allreduce(&wall, &n, 1, MPI_INT64_T, MPI_SUM, world());
  EXPECT_EQ(n, cells_around);
  EXPECT_THROW(dm.owned_marker_faces("wing"), camber::Error);
}

// Owned cells along a space-filling curve whatever the file's order: a box
// of 3,072 tetrahedra numbered at random. Face neighbours among a rank's
// owned cells are numbered close (mean distance below a tenth of the owned
// count, where a random order gives a third), and the halo still brings
// each ghost its owner's row: a field holding each cell's global id comes
// back in every ghost row as that ghost's id (the owner sends its cells in
// the ghosts' order, not in its own local order).
TEST(DistributedMesh, OwnedCellsFollowACurveAndTheHaloStillMatches) {
  const mesh::Mesh global = mesh::Mesh::from_cells(camber_test_mesh::shuffled_box(8, 5));
  mesh::DistributedMesh dm(global, world());
  const index_t n_owned = dm.n_owned_cells();
  const auto left = on_host(dm.local().face_left());
  const auto right = on_host(dm.local().face_right());
  double sum = 0.0;
  index_t pairs = 0;
  for (index_t f = 0; f < dm.local().n_faces(); ++f)
    if (right(f) >= 0 && left(f) < n_owned && right(f) < n_owned) {
      sum += static_cast<double>(std::abs(left(f) - right(f)));
      ++pairs;
    }
  ASSERT_GT(pairs, 0);
  const double mean = sum / static_cast<double>(pairs) / static_cast<double>(n_owned);
  EXPECT_LT(mean, 0.1) << "owned face neighbours' mean number distance / owned cells";

  camber::Tensor id({dm.n_local_cells(), 1});
  for (index_t c = 0; c < n_owned; ++c)
    id.data()[c] = static_cast<double>(dm.cell_global_ids()[static_cast<size_t>(c)]);
  for (index_t c = n_owned; c < dm.n_local_cells(); ++c) id.data()[c] = -1.0;
  dm.halo().forward(id);
  index_t wrong = 0;
  for (index_t c = n_owned; c < dm.n_local_cells(); ++c)
    wrong += id.data()[c] != static_cast<double>(dm.cell_global_ids()[static_cast<size_t>(c)]);
  EXPECT_EQ(wrong, 0);
  if (size() > 1) {
    EXPECT_GT(dm.n_local_cells(), n_owned);
  }
}

TEST(DistributedMesh, OwnedVolumesSumToTheSerialTotal) {
  const auto& dm = distributed();
  const auto v = on_host(mesh::compute_geometry(dm.local()).cell_volume);
  double mine = 0;
  for (index_t c = 0; c < dm.n_owned_cells(); ++c) mine += v(c);
  const double total = sum_over_ranks(mine);
  const double serial = serial_total_volume();
  if (rank() == 0)
    std::printf("[ volume    ] %d ranks: sum of owned %.17g, serial %.17g, rel diff %.2e\n",
                size(), total, serial, std::abs(total - serial) / serial);
  EXPECT_NEAR(total, serial, 1e-12 * serial);
  // An O-grid to 50 chords: a disc of radius 50 less the airfoil (area
  // 0.0822 for the 12% section), up to the polygonal far field.
  EXPECT_NEAR(serial, M_PI * 50.0 * 50.0, 2e-3 * serial);
}

TEST(DistributedMesh, HaloFillsGhostsWithTheOwnersGeometry) {
  auto& dm = distributed();
  const auto v = on_host(mesh::compute_geometry(dm.local()).cell_volume);
  camber::Tensor field({dm.n_local_cells()});
  std::vector<double> values(static_cast<std::size_t>(dm.n_local_cells()), -1.0);
  for (index_t c = 0; c < dm.n_owned_cells(); ++c) values[c] = v(c);
  field.assign(values);
  dm.halo().forward(field);
  const std::vector<double> after = field.to_vector();
  for (index_t c = dm.n_owned_cells(); c < dm.n_local_cells(); ++c)
    EXPECT_NEAR(after[c], v(c), 1e-14 * std::abs(v(c))) << "ghost " << c;
  if (size() > 1) {
    EXPECT_GT(dm.n_local_cells(), dm.n_owned_cells());
  }
}

// A deformed copy (with_coordinates: the same partition and halo, the
// nodes moved) has the geometry of a mesh distributed from the deformed
// global mesh: every local node where the global coordinates put it, the
// owned volumes summing to the serial total of the deformed mesh, the
// halo filling ghosts with their owners' volumes; the original unchanged.
TEST(DistributedMesh, MovedCopyHasTheDeformedGeometryOnTheSamePartition) {
  const auto& dm = distributed();
  const mesh::Mesh& g = global_mesh();
  // A smooth map of the plane: (x, y) -> (x + 0.01 sin y, y + 0.02 x^2 / 2500).
  const auto gc = on_host(g.coords());
  std::vector<double> moved(static_cast<size_t>(g.n_nodes()) * 2);
  for (index_t a = 0; a < g.n_nodes(); ++a) {
    moved[static_cast<size_t>(a * 2)] = gc(a, 0) + 0.01 * std::sin(gc(a, 1));
    moved[static_cast<size_t>(a * 2 + 1)] = gc(a, 1) + 0.02 * gc(a, 0) * gc(a, 0) / 2500.0;
  }
  const camber::Tensor X = camber::Tensor::from_host({g.n_nodes(), 2}, moved);
  mesh::DistributedMesh copy = dm.with_coordinates(X);
  ASSERT_EQ(copy.n_local_nodes(), dm.n_local_nodes());
  ASSERT_EQ(copy.cell_global_ids(), dm.cell_global_ids());
  const auto lc = on_host(copy.local().coords());
  const auto oc = on_host(dm.local().coords());
  for (index_t i = 0; i < copy.n_local_nodes(); ++i) {
    const std::int64_t a = copy.node_global_ids()[static_cast<size_t>(i)];
    EXPECT_EQ(lc(i, 0), moved[static_cast<size_t>(a * 2)]) << i;
    EXPECT_EQ(lc(i, 1), moved[static_cast<size_t>(a * 2 + 1)]) << i;
    EXPECT_EQ(oc(i, 0), gc(a, 0)) << "original moved at " << i;
  }
  const auto v = on_host(mesh::compute_geometry(copy.local()).cell_volume);
  double mine = 0;
  for (index_t c = 0; c < copy.n_owned_cells(); ++c) mine += v(c);
  const auto vs = on_host(mesh::compute_geometry(g.with_coordinates(X)).cell_volume);
  double serial = 0;
  for (index_t c = 0; c < g.n_cells(); ++c) serial += vs(c);
  EXPECT_NEAR(sum_over_ranks(mine), serial, 1e-12 * serial);
  camber::Tensor field({copy.n_local_cells()});
  std::vector<double> values(static_cast<std::size_t>(copy.n_local_cells()), -1.0);
  for (index_t c = 0; c < copy.n_owned_cells(); ++c) values[static_cast<size_t>(c)] = v(c);
  field.assign(values);
  copy.halo().forward(field);
  const std::vector<double> after = field.to_vector();
  for (index_t c = copy.n_owned_cells(); c < copy.n_local_cells(); ++c)
    EXPECT_NEAR(after[static_cast<size_t>(c)], v(c), 1e-14 * std::abs(v(c))) << "ghost " << c;
  EXPECT_THROW((void)dm.with_coordinates(camber::Tensor({g.n_nodes() + 1, 2})), camber::Error);
}

// d(total area)/d(node coordinates): the sum over ranks of the owned
// cells' Dual derivatives equals the serial forward-mode gradient and
// central differences of the serial total.
TEST(DistributedMesh, AreaGradientMatchesSerialAndFiniteDifferences) {
  const auto& dm = distributed();
  const mesh::Mesh& g = global_mesh();
  const auto x = on_host(g.coords());
  for (const std::int64_t node : probe_nodes()) {
    const auto& ids = dm.node_global_ids();
    const auto it = std::find(ids.begin(), ids.end(), node);
    const index_t local = it == ids.end() ? -1 : static_cast<index_t>(it - ids.begin());
    const auto mine = area_gradient(dm.local(), local, dm.n_owned_cells());
    const std::array<double, 2> parallel{sum_over_ranks(mine[0]), sum_over_ranks(mine[1])};
    const auto serial = area_gradient(g, node, g.n_cells());

    // Area is linear in each coordinate of one node, so central
    // differences have no truncation error; h sets the round-off of the
    // difference of two totals of ~7850: 1e-12 * 7850 / h.
    const double h = 1e-3;
    std::array<double, 2> fd{};
    for (int d = 0; d < 2; ++d)
      fd[d] = camber::test::central_difference(
          [&](double t) {
            Kokkos::View<double**> xs("x", g.n_nodes(), 2);
            auto xh = Kokkos::create_mirror_view(xs);
            Kokkos::deep_copy(xh, x);
            xh(node, d) += t;
            Kokkos::deep_copy(xs, xh);
            const auto v = on_host(mesh::compute_geometry(g, xs).cell_volume);
            double total = 0;
            for (index_t c = 0; c < g.n_cells(); ++c) total += v(c);
            return total;
          },
          0.0, h);
    if (rank() == 0)
      std::printf("[ gradient  ] node %lld (%.4g, %.4g): ranks %.15g %.15g | serial %.15g "
                  "%.15g | FD %.10g %.10g\n",
                  static_cast<long long>(node), x(node, 0), x(node, 1), parallel[0],
                  parallel[1], serial[0], serial[1], fd[0], fd[1]);
    for (int d = 0; d < 2; ++d) {
      EXPECT_NEAR(parallel[d], serial[d], 1e-12) << "node " << node << " axis " << d;
      EXPECT_NEAR(fd[d], serial[d], 1e-7) << "node " << node << " axis " << d;
    }
  }
}

#if CAMBER_WITH_IO

namespace {

// A folder per rank count, so runs at several rank counts may overlap.
fs::path out_dir(const std::string& test) {
  return camber::test::scratch_dir("distributed_mesh_out", test);
}

const std::vector<std::string> field_names = {"Rank", "Volume [m^2]", "Wall distance [m]"};

// The three cell fields with one row per local cell; the wall distance
// comes from the global mesh (the wall may lie on other ranks).
std::vector<camber::io::Field> cell_fields(const mesh::DistributedMesh& dm) {
  if (!shared().wall_distance) {
    const auto& g = global_mesh();
    shared().wall_distance =
        on_host(mesh::wall_distance(g, mesh::compute_geometry(g), {"airfoil"}));
  }
  const auto& serial_distance = *shared().wall_distance;
  const auto v = on_host(mesh::compute_geometry(dm.local()).cell_volume);
  std::vector<camber::io::Field> fields{{field_names[0], 1, {}},
                                        {field_names[1], 1, {}},
                                        {field_names[2], 1, {}}};
  for (index_t c = 0; c < dm.n_local_cells(); ++c) {
    fields[0].values.push_back(rank());
    fields[1].values.push_back(v(c));
    fields[2].values.push_back(serial_distance(dm.cell_global_ids()[c]));
  }
  return fields;
}

// Writes grid.pvd (one .pvtu), wall.pvtp and grid.h5 + grid.xdmf in `dir`.
void write_outputs(const mesh::DistributedMesh& dm, const fs::path& dir) {
  namespace io = camber::io;
  const auto fields = cell_fields(dm);
  io::PvdSeries series((dir / "grid.pvd").string(), world());
  const std::string name = io::series_file_name("grid", 0);
  io::write_pvtu((dir / name).string(), dm.owned_piece(fields), world());
  series.add(0.0, name + ".pvtu");
  io::write_pvtp((dir / "wall").string(), dm.marker_surface("airfoil", fields), world());
  io::write_xdmf_mesh((dir / "grid.h5").string(), (dir / "grid.xdmf").string(),
                      dm.file_block(fields), world());
}

}  // namespace

TEST(DistributedMeshOutput, VtkReadersSeeEveryCellOnce) {
  const auto& dm = distributed();
  const fs::path dir = out_dir("vtk");
  write_outputs(dm, dir);
  const double serial = serial_total_volume();
  if (rank() == 0) {
    vtkNew<vtkXMLPUnstructuredGridReader> grid_reader;
    grid_reader->SetFileName((dir / "grid_0000.pvtu").c_str());
    grid_reader->Update();
    vtkUnstructuredGrid* grid = grid_reader->GetOutput();
    EXPECT_EQ(grid->GetNumberOfCells(), n_cells_expected);
    for (const auto& name : field_names)
      EXPECT_NE(grid->GetCellData()->GetArray(name.c_str()), nullptr) << name;
    vtkDataArray* volume = grid->GetCellData()->GetArray("Volume [m^2]");
    vtkDataArray* ranks = grid->GetCellData()->GetArray("Rank");
    if (volume != nullptr && ranks != nullptr) {
      double total = 0, max_rank = 0;
      for (vtkIdType c = 0; c < volume->GetNumberOfTuples(); ++c) {
        total += volume->GetTuple1(c);
        max_rank = std::max(max_rank, ranks->GetTuple1(c));
      }
      EXPECT_NEAR(total, serial, 1e-12 * serial);
      EXPECT_EQ(max_rank, size() - 1);
    }

    vtkNew<vtkXMLPPolyDataReader> wall_reader;
    wall_reader->SetFileName((dir / "wall.pvtp").c_str());
    wall_reader->Update();
    vtkPolyData* wall = wall_reader->GetOutput();
    EXPECT_EQ(wall->GetNumberOfCells(), cells_around);
    EXPECT_EQ(wall->GetNumberOfLines(), cells_around);
    for (const auto& name : field_names)
      EXPECT_NE(wall->GetCellData()->GetArray(name.c_str()), nullptr) << name;
    // The wall cells are the first layer: half their height from the wall.
    if (vtkDataArray* d = wall->GetCellData()->GetArray("Wall distance [m]")) {
      double range[2];
      d->GetRange(range);
      EXPECT_GT(range[0], 0.0);
      EXPECT_LT(range[1], 1e-5);
    }
  }
}

TEST(DistributedMeshOutput, XdmfHdf5HoldsTheMeshInOneNumbering) {
  const auto& dm = distributed();
  const fs::path dir = out_dir("xdmf");
  write_outputs(dm, dir);
  camber::io::H5File in((dir / "grid.h5").string(), camber::io::Mode::read, world());
  const std::vector<double> points = in.read_all("mesh/points").to_vector();
  const std::vector<double> topology = in.read_all("mesh/topology").to_vector();
  const std::vector<double> volume = in.read_all("cell_data/field_1").to_vector();
  in.close();
  EXPECT_EQ(static_cast<std::int64_t>(points.size()), 3 * global_mesh().n_nodes());
  ASSERT_EQ(static_cast<std::int64_t>(topology.size()), 5 * n_cells_expected);
  ASSERT_EQ(static_cast<std::int64_t>(volume.size()), n_cells_expected);
  // Every cell of the file, rebuilt from its points, has the area stored
  // for it: the shared point numbering is consistent across ranks.
  double worst = 0;
  for (std::int64_t c = 0; c < n_cells_expected; ++c) {
    ASSERT_EQ(topology[5 * c], 5.0);  // XDMF Quadrilateral
    double xs[4], ys[4];
    for (int k = 0; k < 4; ++k) {
      const auto p = static_cast<std::size_t>(topology[5 * c + 1 + k]);
      xs[k] = points[3 * p];
      ys[k] = points[3 * p + 1];
    }
    const double area = mesh::polygon_area(xs, ys, 4);
    worst = std::max(worst, std::abs(area - volume[c]) / volume[c]);
  }
  EXPECT_LT(worst, 1e-14);
  if (rank() == 0) {
    EXPECT_TRUE(fs::exists(dir / "grid.xdmf"));
    EXPECT_FALSE(fs::exists(dir / "grid.h5.tmp"));
  }
}

// ParaView itself opens the .pvd, the .pvtp and the .xdmf. Runs only when
// CAMBER_PARAVIEW_READ names the paraview-read tool (the `paraview` ctest
// sets it).
TEST(DistributedMeshParaView, OpensGridWallAndXdmf) {
  const char* tool = std::getenv("CAMBER_PARAVIEW_READ");
  if (tool == nullptr || !fs::exists(tool)) GTEST_SKIP() << "CAMBER_PARAVIEW_READ not set";
  const auto& dm = distributed();
  const fs::path dir = out_dir("paraview");
  write_outputs(dm, dir);
  if (rank() != 0) return;
  const char* home = std::getenv("HOME");
  const char* path = std::getenv("PATH");
  std::string command = std::string("env -i HOME='") + (home ? home : "/root") + "' PATH='" +
                        (path ? path : "/usr/bin:/bin") + "' '" + tool + "'";
  for (const char* file : {"grid.pvd", "wall.pvtp", "grid.xdmf"})
    command += " '" + fs::absolute(dir / file).string() + "'";
  command += " 2>&1";
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
    pclose(pipe);
  }
  // One JSON line per file, in order.
  std::vector<std::string> lines;
  std::regex line_re(R"(\{"file".*)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line_re);
       it != std::sregex_iterator(); ++it)
    lines.push_back(it->str());
  ASSERT_EQ(lines.size(), 3u) << output;
  const long long expected_cells[] = {n_cells_expected, cells_around, n_cells_expected};
  for (std::size_t i = 0; i < 3; ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(lines[i], m, std::regex(R"("cells":\s*(\d+))"))) << lines[i];
    EXPECT_EQ(std::stoll(m[1].str()), expected_cells[i]) << lines[i];
    const auto cell_arrays = lines[i].substr(lines[i].find("\"cell_arrays\""));
    for (const auto& name : field_names)
      EXPECT_NE(cell_arrays.find("\"" + name + "\""), std::string::npos) << name << "\n"
                                                                       << lines[i];
  }
}

#endif
