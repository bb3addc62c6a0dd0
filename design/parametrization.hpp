/// @file
/// camber::design parametrization — an airfoil wall's shape
/// parametrization chosen by name: Hicks-Henne bumps (hicks_henne.hpp),
/// Kulfan CST (cst.hpp) or a free-form deformation box (ffd.hpp), with the
/// settings of each. What `camber optimize` builds from a deck's design
/// section, as one call.
///
/// @code
///   design::ParametrizationSettings s;
///   s.kind = design::ParametrizationKind::cst;
///   s.cst.order = 8;
///   std::unique_ptr<design::ShapeParametrization> p = design::make_parametrization(s, dm);  // collective
///   // p->n_design() == 18: order + 1 coefficients per surface
/// @endcode
///
/// ffd_volume names the trivariate box of 3-D meshes (ffd_volume.hpp) and
/// wing_twist a wing's twist at spanwise stations (wing_twist.hpp), which
/// move a volume rather than a wall: make_parametrization refuses them
/// (bad_input), as it refuses a wall marker the mesh does not have.
#pragma once

#include <array>
#include <memory>
#include <string>

#include <camber/core/enum_names.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/ffd.hpp>
#include <camber/mesh/distributed_mesh.hpp>

namespace camber::design {

enum class ParametrizationKind { hicks_henne, cst, ffd, ffd_volume, wing_twist };
inline constexpr std::array<EnumName<ParametrizationKind>, 5> parametrization_kind_names{
    {{ParametrizationKind::hicks_henne, "hicks_henne"},
     {ParametrizationKind::cst, "cst"},
     {ParametrizationKind::ffd, "ffd"},
     {ParametrizationKind::ffd_volume, "ffd_volume"},
     {ParametrizationKind::wing_twist, "wing_twist"}}};

struct ParametrizationSettings {
  ParametrizationKind kind = ParametrizationKind::hicks_henne;
  std::string wall = "airfoil";  ///< the wall marker designed
  int bumps_per_surface = 19;    ///< hicks_henne: peaks at k / (n + 1) of the chord
  CstOptions cst;                ///< cst
  FfdOptions ffd;                ///< ffd
};

/// The parametrization `s` names of the wall marker s.wall of a 2-D mesh.
/// bad_input when the mesh has no such marker, for ffd_volume and
/// wing_twist, and for
/// settings the parametrization refuses. Collective.
std::unique_ptr<ShapeParametrization> make_parametrization(const ParametrizationSettings& s,
                                                           const mesh::DistributedMesh& dm);

}  // namespace camber::design
