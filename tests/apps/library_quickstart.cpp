// SU2's QuickStart case (NACA 0012, M 0.8, alpha 1.25 deg) at second order
// as a C++ program writes it, setting only what the deck
// quickstart_defaults.yaml sets (Mach, alpha, order 2, the markers' kinds)
// and leaving every other setting at the library's default; prints CL and
// CD to 12 digits for check_same_as_deck.py to hold against `camber run`
// on that deck. Links the library, not the command line.
//
//   library_quickstart MESH [--classic-limiter]
//
// --classic-limiter sets what the library's default used to be (the
// classic Venkatakrishnan limiter), for the test that the check can fail.
#include <cstdio>
#include <string>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

namespace eu = camber::solvers::euler;

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    camber::solvers::petsc::PetscSession petsc;
    const bool classic = argc == 3 && std::string(argv[2]) == "--classic-limiter";
    CAMBER_INPUT_REQUIRE(argc == 2 || classic, "usage: library_quickstart MESH [--classic-limiter]");
    camber::mesh::DistributedMesh dm = camber::mesh::DistributedMesh::read(argv[1], runtime.comm());
    eu::FlowConditions flow;
    flow.mach = 0.8;
    flow.alpha_deg = 1.25;
    eu::SpatialOptions spatial;
    spatial.order = 2;
    if (classic) spatial.limiter = eu::LimiterKind::venkatakrishnan;
    const eu::Discretization disc(dm, flow,
                                  {{"airfoil", eu::BoundaryKind::slip_wall},
                                   {"farfield", eu::BoundaryKind::far_field}},
                                  eu::FluxScheme::roe, spatial);
    camber::Tensor U = disc.free_stream_field();
    const eu::SteadyResult r = eu::solve_steady(disc, U, {});
    if (runtime.rank() == 0)
      std::printf("converged %d CL %.12f CD %.12f\n", r.converged ? 1 : 0, r.forces.cl, r.forces.cd);
    return r.converged ? 0 : 1;
  });
}
