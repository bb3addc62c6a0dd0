// C++ API tour 3: a mesh over MPI ranks, a halo exchange and reductions
// (component: mesh).
//
// Shows: mesh::DistributedMesh::read (each rank reads its share of the
// file, PT-Scotch splits, each rank keeps its cells and one layer of ghosts), geometry on the local mesh, a
// zero-copy Tensor over a geometry View, the halo exchange filling ghost
// rows from their owners, and reductions over owned cells. Checks that the
// area summed over ranks equals the serial area of the whole mesh (to 1e-12,
// the summation order differs) and that every ghost row receives its
// owner's value exactly.
//
//   mpirun -n 4 build-tour/tour_distributed ../shared/data/meshes/naca0012_inviscid_su2_quickstart.su2
//
// A bad path or file is one message and exit code 2 on any rank count.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>

#include <camber/core/error.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/tensor.hpp>

namespace mesh = camber::mesh;
namespace par = camber::par;
using camber::index_t;
using camber::Tensor;

// v(c) = value for the rows [begin, end). (Kernels live in named functions:
// CUDA does not allow device lambdas inside other lambdas.)
void set_rows(const Kokkos::View<double*>& v, index_t begin, index_t end, double value) {
  Kokkos::parallel_for(
      "set_rows", Kokkos::RangePolicy<>(begin, end),
      KOKKOS_LAMBDA(const index_t c) { v(c) = value; });
}

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    CAMBER_INPUT_REQUIRE(argc == 2, "usage: tour_distributed MESH_FILE (.su2, .msh or .cgns)");
    mesh::DistributedMesh dm = mesh::DistributedMesh::read(argv[1], runtime.comm());

    // Geometry of this rank's cells, owned and ghost; the Tensor shares the
    // View's storage, so the exchange below writes into g.cell_volume.
    const mesh::Geometry g = mesh::compute_geometry(dm.local());
    Tensor volume = Tensor::from_view(g.cell_volume);
    const Tensor expected = volume.clone();

    // Spoil the ghost rows, then let the halo exchange refill them from
    // their owners (ghost rows follow the owned ones).
    set_rows(g.cell_volume, dm.n_owned_cells(), dm.n_local_cells(), -1.0);
    dm.halo().forward(volume);
    const double ghost_error = par::allreduce_max(camber::max_abs_diff(volume, expected),
                                                  dm.comm());

    const double area = par::sum_owned(volume, dm.distribution());  // each cell once
    const double total = mesh::total_volume(dm);                     // the same, one call
    if (dm.rank() == 0)
      std::printf("%lld cells over %d ranks (edge cut %lld): area %.12f, ghost error %.1e\n",
                  static_cast<long long>(dm.n_global_cells()), dm.size(),
                  static_cast<long long>(dm.quality().edge_cut), area, ghost_error);
    CAMBER_REQUIRE(ghost_error == 0.0, "ghost rows differ from their owners by " << ghost_error);
    CAMBER_REQUIRE(std::abs(area - total) <= 1e-12 * total,
                   "sum_owned " << area << " != total_volume " << total);
    // The whole mesh on every rank (read once, broadcast), summed serially.
    const double serial = mesh::total_volume(mesh::read_mesh(argv[1], dm.comm()));
    CAMBER_REQUIRE(std::abs(area - serial) <= 1e-12 * serial,
                   "area over ranks " << area << " != serial area " << serial);
    return 0;
  });
}
