// A small design problem shared by the aero tests that run whole designs
// quickly: a NACA 0012 section on a 48 x 24 O-grid (30 chords), M 0.5,
// alpha 1 deg, first order, 3 Hicks-Henne bumps per surface within 0.002
// chords, the thickness held.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <camber/design/hicks_henne.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>

namespace camber::test {

inline mesh::Mesh small_section_mesh() {
  return mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 30.0);
}

inline solvers::aero::AirfoilDesignSettings small_section_settings(int max_evaluations) {
  namespace eu = solvers::euler;
  solvers::aero::AirfoilDesignSettings s;
  s.flow.flow.mach = 0.5;
  s.flow.flow.alpha_deg = 1.0;
  s.flow.conditions = {{"airfoil", eu::BoundaryKind::slip_wall}, {"farfield", eu::BoundaryKind::far_field}};
  s.flow.spatial.order = 1;
  s.flow.steady.rel_tolerance = 1e-10;
  s.optimizer.max_evaluations = max_evaluations;
  s.bound = 0.002;
  return s;
}

inline std::unique_ptr<solvers::aero::AirfoilDesign> small_section(const mesh::Mesh& m, MPI_Comm comm,
                                                                   int max_evaluations) {
  return std::make_unique<solvers::aero::AirfoilDesign>(
      m, comm,
      std::make_unique<design::HicksHenne>(m, std::vector<std::string>{"airfoil"},
                                           design::evenly_spaced_bumps(3)),
      small_section_settings(max_evaluations));
}

}  // namespace camber::test
