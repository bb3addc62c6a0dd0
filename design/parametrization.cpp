#include <camber/design/parametrization.hpp>

#include <utility>

#include <camber/core/error.hpp>
#include <camber/design/design_boundary.hpp>
#include <camber/design/hicks_henne.hpp>

namespace camber::design {

std::unique_ptr<ShapeParametrization> make_parametrization(const ParametrizationSettings& s,
                                                           const mesh::DistributedMesh& dm) {
  // Every rank has every marker's name: all refuse alike, before the wall
  // is gathered.
  CAMBER_INPUT_REQUIRE(dm.local().marker_index(s.wall) >= 0, "the mesh has no marker '" << s.wall << "'");
  CAMBER_INPUT_REQUIRE(s.kind != ParametrizationKind::ffd_volume &&
                           s.kind != ParametrizationKind::wing_twist,
                       enum_name(parametrization_kind_names, s.kind)
                           << " designs a 3-D mesh (design::FfdVolume, design::WingTwist); an "
                              "airfoil wall takes hicks_henne, cst or ffd");
  AirfoilWall w(design_boundary(dm, {s.wall}));
  switch (s.kind) {
    case ParametrizationKind::hicks_henne:
      return std::make_unique<HicksHenne>(std::move(w), evenly_spaced_bumps(s.bumps_per_surface));
    case ParametrizationKind::cst:
      return std::make_unique<Cst>(std::move(w), s.cst);
    default:
      return std::make_unique<FreeFormDeformation>(std::move(w), s.ffd);
  }
}

}  // namespace camber::design
