#include <camber/solvers/aero/wing_design.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include <camber/autodiff/distributed_ops.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/design/linear_map.hpp>
#include <camber/design/mesh_deformation.hpp>

namespace camber::solvers::aero {

namespace {

ShapeDesign::FlowFactory flows_on(const mesh::DistributedMesh& dm) {
  return [&dm](const euler::SteadyFlowSettings& f) {
    return std::make_unique<euler::SteadyFlow>(dm, f);
  };
}

const mesh::DistributedMesh& three_d(const mesh::DistributedMesh& dm,
                                     const WingDesignSettings& s) {
  collective_guard(dm.comm(), [&] {
    CAMBER_INPUT_REQUIRE(dm.local().dim() == 3, "WingDesign: the mesh is " << dm.local().dim()
                                                    << "-D; a wing design needs a 3-D mesh");
    for (const std::string& w : s.walls)
      CAMBER_INPUT_REQUIRE(dm.local().marker_index(w) >= 0,
                           "WingDesign: the mesh has no marker '" << w << "'");
    CAMBER_INPUT_REQUIRE(s.margin > 0.0, "WingDesign: margin = " << s.margin
                                                                  << " must be positive");
    CAMBER_INPUT_REQUIRE(s.thickness_fraction >= 0.0,
                         "WingDesign: thickness_fraction = " << s.thickness_fraction
                                                             << " must be >= 0");
    const bool twist = s.parametrization == design::ParametrizationKind::wing_twist;
    CAMBER_INPUT_REQUIRE(twist || s.parametrization == design::ParametrizationKind::ffd_volume,
                         "WingDesign: parametrization '"
                             << enum_name(design::parametrization_kind_names, s.parametrization)
                             << "' moves a 2-D airfoil's wall; a wing takes ffd_volume or "
                                "wing_twist");
    CAMBER_INPUT_REQUIRE(!twist || s.thickness_fraction == 0.0,
                         "WingDesign: wing_twist turns the sections without changing their "
                         "thickness; thickness_fraction = "
                             << s.thickness_fraction << " must be 0");
    if (twist) design::WingTwist::check(s.twist);
  });
  return dm;
}

// The thickness stations, an error agreed on by every rank.
design::WingThickness stations_on(const mesh::DistributedMesh& dm, const WingDesignSettings& s) {
  std::optional<design::WingThickness> stations;
  collective_guard(dm.comm(), [&] {
    stations.emplace(dm, s.walls,
                     s.thickness_fraction > 0.0 ? s.thickness_etas : std::vector<double>{},
                     s.thickness_chord_fractions);
  });
  return std::move(*stations);
}

bool twists(const WingDesignSettings& s) {
  return s.parametrization == design::ParametrizationKind::wing_twist;
}

// The shape map at the points: the FFD box or the twist.
std::shared_ptr<const design::LinearMap> make_shape_map(const WingDesignSettings& s,
                                                   const design::FfdVolumeBox& box,
                                                   const design::WingTwistAxis& axis,
                                                   const Tensor& points) {
  if (twists(s)) return std::make_shared<design::WingTwist>(axis, points, s.twist);
  return std::make_shared<design::FfdVolume>(box, points, s.ffd);
}

}  // namespace

// The box at this rank's node rows; the stations' thickness.
class WingDesign::Geometry : public DesignGeometry {
 public:
  Geometry(const WingDesign& design, euler::SteadyFlow& flow)
      : design_(design), flow_(flow), rows_(flow.row_coordinates()) {}

  index_t n_shape() const override { return design_.map_->input_shape()[0]; }

  ad::Var rank_rows(const ad::Var& a) const override {
    // a is the same on every rank; each rank moves its own rows, and the
    // backward pass sums the ranks' shares of dJ/da.
    return design::apply_linear(design_.map_, ad::grad_allreduce(a, design_.comm()), rows_);
  }

  void check(const Tensor& Xr) const override {
    design::check_cell_volumes(flow_.distributed_mesh(), Xr);
  }

  int n_constraints() const override {
    return design_.settings_.thickness_fraction > 0.0 ? static_cast<int>(design_.stations_.size())
                                                      : 0;
  }

  void constraints(const ad::Var& av, std::vector<double>& g,
                   std::vector<std::vector<double>>& dg) const override {
    const double fraction = design_.settings_.thickness_fraction;
    if (!(fraction > 0.0)) return;
    const std::vector<double> a = av.value().to_vector();
    const std::vector<double> t = design_.thickness(a), t0 = design_.stations_.baseline();
    for (size_t s = 0; s < t.size(); ++s) {
      g.push_back(fraction * t0[s] - t[s]);
      std::vector<double> row = design_.T_[s];
      for (double& v : row) v = -v;
      dg.push_back(std::move(row));
    }
  }

 private:
  const WingDesign& design_;
  euler::SteadyFlow& flow_;
  Tensor rows_;  // the undeformed node rows
};

WingDesign::WingDesign(mesh::DistributedMesh dm, WingDesignSettings settings)
    : ShapeDesign(three_d(dm, settings).comm(), settings, flows_on(dm)),
      settings_(std::move(settings)),
      box_(design::FfdVolume::box_around(flow(0).distributed_mesh(), settings_.walls,
                                         settings_.margin)),
      twist_axis_(twists(settings_) ? design::WingTwist::axis_around(flow(0).distributed_mesh(),
                                                                      settings_.walls, settings_.twist)
                                    : design::WingTwistAxis{}),
      map_(make_shape_map(settings_, box_, twist_axis_, flow(0).row_coordinates())),
      stations_(stations_on(flow(0).distributed_mesh(), settings_)),
      T_(twists(settings_) ? std::vector<std::vector<double>>()
                           : stations_.jacobian(box_, settings_.ffd)) {
  auto geometry = std::make_unique<Geometry>(*this, flow(0));
  attach(std::move(geometry));
}

WingDesign::~WingDesign() = default;

double WingDesign::thickness_ratio(const std::vector<double>& a) const {
  const std::vector<double> t = thickness(a), t0 = stations_.baseline();
  double lowest = std::numeric_limits<double>::infinity();
  for (size_t s = 0; s < t.size(); ++s) lowest = std::min(lowest, t[s] / t0[s]);
  return lowest;
}

WingDesignResult WingDesign::run(const Report& report, bool restart) {
  WingDesignResult result;
  static_cast<ShapeDesignResult&>(result) = ShapeDesign::run(report, restart);
  result.baseline_thickness = stations_.baseline();
  result.final_thickness = T_.empty() ? result.baseline_thickness : thickness(result.final_shape);
  return result;
}

}  // namespace camber::solvers::aero
