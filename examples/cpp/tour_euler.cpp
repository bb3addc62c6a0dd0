// C++ API tour 6: a steady transonic Euler solution on SU2's QuickStart
// mesh (component: solvers_euler).
//
// Shows: mesh::DistributedMesh::read (each rank reads its share, PT-Scotch
// partitions, one ghost layer), solvers::euler::Discretization (the finite-volume residual
// with Roe's flux, slip wall and characteristic far field),
// solvers::euler::solve_steady (pseudo-transient Newton-Krylov on PETSc)
// and the force coefficients. The case is SU2's inviscid QuickStart, NACA
// 0012 at M 0.8 and alpha 1.25 deg, at first order (the second-order
// scheme is SpatialOptions::order = 2). Checks: the density residual falls
// by 8 orders, and the airfoil lifts (CL > 0) with drag (CD > 0) at this
// transonic, positive-incidence condition. (That the forces do not depend
// on the rank count is tests/solvers/euler's to check; run this at 1 and 2
// ranks to see it.)
//
//   mpirun -n 2 build-tour/tour_euler ../shared/data/meshes/naca0012_inviscid_su2_quickstart.su2
#include <cstdio>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

namespace eu = camber::solvers::euler;
namespace mesh = camber::mesh;

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    camber::solvers::petsc::PetscSession petsc;  // after Runtime; finalized before it
    CAMBER_INPUT_REQUIRE(argc == 2, "usage: tour_euler MESH.su2");
    // Held for the Discretization's life (it keeps a reference).
    mesh::DistributedMesh dm = mesh::DistributedMesh::read(argv[1], runtime.comm());

    eu::FlowConditions flow;
    flow.mach = 0.8;
    flow.alpha_deg = 1.25;
    const std::vector<eu::BoundaryCondition> conditions{
        {"airfoil", eu::BoundaryKind::slip_wall}, {"farfield", eu::BoundaryKind::far_field}};
    eu::Discretization disc(dm, flow, conditions, eu::FluxScheme::roe);

    camber::Tensor U = disc.free_stream_field();  // {n_local, 4}: rho, rho u, rho v, rho E
    eu::SteadyOptions options;
    options.rel_tolerance = 1e-8;
    const eu::SteadyResult r = eu::solve_steady(disc, U, options);
    const eu::Forces f = disc.forces(U);
    if (runtime.rank() == 0) {
      std::printf("%lld cells on %d rank%s: %s after %d Newton steps (%d Krylov iterations)\n",
                  static_cast<long long>(dm.n_global_cells()), runtime.size(),
                  runtime.size() == 1 ? "" : "s",
                  r.converged ? "converged" : "NOT converged", r.iterations,
                  r.linear_iterations);
      std::printf("density residual %.3e -> %.3e\n", r.history.front().residual_density,
                  r.history.back().residual_density);
      std::printf("CL %.6f  CD %.6f  CM %.6f (first order)\n", f.cl, f.cd, f.cm);
    }
    CAMBER_REQUIRE(r.converged, "the steady solve did not converge");
    CAMBER_REQUIRE(f.cl > 0.0 && f.cd > 0.0,
                   "unphysical forces at M 0.8, alpha 1.25 deg: CL " << f.cl << ", CD " << f.cd);
    return 0;
  });
}
