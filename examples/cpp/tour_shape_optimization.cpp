// C++ API tour 8: aerodynamic shape optimization as a library problem
// (component: solvers_aero).
//
// Shows: solvers::aero::AirfoilDesign, the problem `camber optimize` solves
// for a deck: Hicks-Henne bumps on a NACA 0012 (design::HicksHenne), the
// volume mesh moved by inverse-distance weighting, the converged
// second-order Euler flow (smooth limiter, live) and its discrete adjoint,
// drag minimized by SLSQP with the lift fixed at the baseline's (every
// design's flow trimmed to it by the angle of attack, LiftConstraint::
// fixed) and the thickness at 49 chord stations at least the baseline's;
// a report per design and its files (aero::DesignRecord, what `camber
// optimize` writes); the optimum written as a design file and read
// back, and the last flow's fields for ParaView (aero::flow_fields,
// aero::sensitivity_fields). Checks: the drag falls, the lift holds (to the
// trim tolerance) and the thickness (to the constraint tolerance). A small grid (64 x 24 cells) so that it runs in seconds; the
// README's example is the same problem on 128 x 40.
//
//   mpirun -n 2 build-tour/tour_shape_optimization
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/aero/design_file.hpp>
#include <camber/solvers/aero/design_record.hpp>
#include <camber/solvers/aero/flow_output.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
namespace mesh = camber::mesh;

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    camber::solvers::petsc::PetscSession petsc;  // after Runtime; finalized before it
    // NACA 0012 with a sharp trailing edge: 64 cells around, 24 out to 50
    // chords (the same mesh on every rank; each solve partitions it).
    const mesh::Mesh m = mesh::airfoil_ogrid(mesh::naca4("0012", true), 64, 24, 4e-3, 50.0);

    aero::AirfoilDesignSettings s;
    s.flow.flow.mach = 0.8;
    s.flow.flow.alpha_deg = 1.25;
    s.flow.conditions = {{"airfoil", eu::BoundaryKind::slip_wall},
                         {"farfield", eu::BoundaryKind::far_field}};
    s.flow.spatial.order = 2;
    s.flow.spatial.limiter = eu::LimiterKind::venkatakrishnan_smooth;
    s.flow.steady.max_iterations = 200;
    // Each design's flow starts from the previous one's at CFL
    // s.flow.warm_cfl_start, and is solved cold after s.flow.
    // warm_max_iterations steps without converging (the deck's defaults).
    s.objective = aero::Coefficient::cd;
    s.thickness_fraction = 1.0;  // t(x) >= t0(x) at every station
    s.lift = aero::LiftConstraint::fixed;  // CL = CL0 at every design (alpha trimmed)
    s.bound = 0.004;             // |a_k| <= 0.4% chord
    s.optimizer.algorithm = "slsqp";
    s.optimizer.max_evaluations = 10;
    s.optimizer.constraint_tol = 1e-6;

    aero::AirfoilDesign design(
        m, runtime.comm(),
        std::make_unique<camber::design::HicksHenne>(m, std::vector<std::string>{"airfoil"},
                                                     camber::design::evenly_spaced_bumps(5)),
        s);
    // What `camber optimize` writes as it goes: a progress line per design,
    // the history, the baseline gradient, each design's fields for
    // ParaView and, at the end, the history's plot and the final design.
    aero::DesignRecordSettings record_settings;
    record_settings.name = "tour_shape_optimization";
    record_settings.objective = "cd";
    record_settings.parametrization = "hicks_henne";
    record_settings.walls = {"airfoil"};
    aero::DesignRecord record(design, record_settings, runtime.comm());
    const aero::AirfoilDesignResult r = design.run(std::ref(record));
    record.write_final(r);
    if (runtime.rank() == 0)
      std::printf("%d design variables on %d rank%s: CD %.6f -> %.6f, CL %.6f -> %.6f, "
                  "largest thickness %.5f -> %.5f\n",
                  static_cast<int>(design.n_design()), runtime.size(),
                  runtime.size() == 1 ? "" : "s", r.baseline[1], r.final[1], r.baseline[0],
                  r.final[0], r.baseline_max_thickness, r.final_max_thickness);
    CAMBER_REQUIRE(r.final[1] < r.baseline[1], "the drag did not fall");
    CAMBER_REQUIRE(std::abs(r.final[0] - r.baseline[0]) <= s.trim_tolerance, "the lift moved");
    const std::vector<double> t0 = design.thickness(std::vector<double>(10, 0.0));
    const std::vector<double> t = design.thickness(r.optimizer.x);
    for (size_t i = 0; i < t.size(); ++i)
      CAMBER_REQUIRE(t[i] >= t0[i] - 1e-6 * s.bound, "thinner than the baseline at station " << i);

    // The optimum as `camber optimize` writes it (a deck's design.start
    // reads it back), and the last flow's fields in physical units, with
    // the adjoint and the surface sensitivity dCD/dn of its gradient: what
    // ParaView shows of each design.
    if (runtime.rank() == 0) {
      aero::write_design_file("tour_shape_optimization_design.csv",
                              {r.final_shape, r.final_alpha_points});
      CAMBER_REQUIRE(aero::read_design_file("tour_shape_optimization_design.csv").shape ==
                         r.final_shape,
                     "the design file does not give back the design");
    }
    eu::SteadyFlow& flow = design.flow();
    std::vector<camber::io::Field> fields = aero::flow_fields(flow.discretization(), flow.state());
    for (camber::io::Field& f : aero::sensitivity_fields(flow, {"airfoil"}, "CD"))
      fields.push_back(std::move(f));
    for (const camber::io::Field& f : fields)
      CAMBER_REQUIRE(f.values.size() == static_cast<size_t>(f.components * flow.discretization().n_owned()),
                     f.name << ": not one value per owned cell and component");
    if (runtime.rank() == 0)
      std::printf("wrote tour_shape_optimization_design.csv; %zu cell fields, the last \"%s\"\n",
                  fields.size(), fields.back().name.c_str());
    return 0;
  });
}
