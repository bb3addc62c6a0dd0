#include <camber/solvers/aero/airfoil_design.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <camber/autodiff/distributed_ops.hpp>
#include <camber/autodiff/functional.hpp>
#include <camber/core/error.hpp>
#include <camber/design/design_boundary.hpp>
#include <camber/mesh/distributed_mesh.hpp>

namespace camber::solvers::aero {

namespace {

std::unique_ptr<design::ShapeParametrization> checked(
    std::unique_ptr<design::ShapeParametrization> shape) {
  CAMBER_REQUIRE(shape, "AirfoilDesign: no shape parametrization");
  return shape;
}

double largest(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

ShapeDesign::FlowFactory flows_on(const mesh::DistributedMesh& dm) {
  return [&dm](const euler::SteadyFlowSettings& f) {
    return std::make_unique<euler::SteadyFlow>(dm, f);
  };
}

}  // namespace

// The wall's parametrization, its volume deformation of this rank's node
// rows, and the section's constraints in the order: thickness stations,
// largest thickness, area, leading-edge radius.
class AirfoilDesign::Geometry : public DesignGeometry {
 public:
  Geometry(const AirfoilDesign& design, euler::SteadyFlow& flow)
      : design_(design),
        flow_(flow),
        deformation_(design::design_boundary(flow.distributed_mesh(),
                                             std::vector<std::string>{design.settings_.wall}),
                     design.settings_.deformation, flow.node_rows(), flow.row_coordinates()),
        baseline_area_(design::section_area(design.shape_->wall(), wall(Tensor({n_shape()})))),
        baseline_le_radius_(design.settings_.le_radius_fraction > 0.0
                                ? design::leading_edge_radius(design.shape_->wall(),
                                                              wall(Tensor({n_shape()})))
                                : 0.0) {
    CAMBER_REQUIRE(design.shape_->wall().nodes() == deformation_.wall_nodes() &&
                       design.shape_->wall().n_mesh_nodes() == deformation_.n_mesh_nodes(),
                   "AirfoilDesign: the parametrization's wall ("
                       << design.shape_->wall().n_nodes() << " nodes of a mesh of "
                       << design.shape_->wall().n_mesh_nodes() << ") is not the mesh's wall '"
                       << design.settings_.wall << "' (" << deformation_.n_wall()
                       << " nodes of " << deformation_.n_mesh_nodes()
                       << "); build it on the same mesh and marker");
  }

  index_t n_shape() const override { return design_.shape_->n_design(); }
  Tensor wall(const Tensor& a) const { return design_.shape_->wall_coordinates(a); }
  const design::MeshDeformation& deformation() const noexcept { return deformation_; }
  double baseline_area() const noexcept { return baseline_area_; }

  ad::Var rank_rows(const ad::Var& a) const override {
    // The wall displacement is the same on every rank; each rank deforms
    // its own rows, and the backward pass sums the ranks' shares of its
    // cotangent.
    return deformation_.coordinates(
        ad::grad_allreduce(design_.shape_->displacement(a), design_.comm()));
  }

  void check(const Tensor& Xr) const override {
    design::check_cell_volumes(flow_.distributed_mesh(), Xr);
  }

  int n_constraints() const override {
    const AirfoilDesignSettings& s = design_.settings_;
    return (s.thickness_fraction > 0.0 ? static_cast<int>(design_.stations_.size()) : 0) +
           (s.max_thickness_min > 0.0 ? 1 : 0) + (s.area_fraction > 0.0 ? 1 : 0) +
           (s.le_radius_fraction > 0.0 ? 1 : 0);
  }

  void constraints(const ad::Var& av, std::vector<double>& g,
                   std::vector<std::vector<double>>& dg) const override {
    const AirfoilDesignSettings& s = design_.settings_;
    const design::ShapeParametrization& shape = *design_.shape_;
    const std::vector<double> a = av.value().to_vector();
    const std::vector<double> t = design_.thickness_(a);
    const std::vector<double>& t0 = design_.thickness_.baseline();
    const auto& T = design_.thickness_.jacobian();
    const auto minus_row = [&](size_t st) {
      std::vector<double> r(a.size(), 0.0);
      for (size_t k = 0; k < T[st].size(); ++k) r[k] = -T[st][k];
      return r;
    };
    if (s.thickness_fraction > 0.0)
      for (size_t st = 0; st < t.size(); ++st) {
        g.push_back(s.thickness_fraction * t0[st] - t[st]);
        dg.push_back(minus_row(st));
      }
    if (s.max_thickness_min > 0.0) {
      const size_t st = static_cast<size_t>(std::max_element(t.begin(), t.end()) - t.begin());
      g.push_back(s.max_thickness_min - t[st]);
      dg.push_back(minus_row(st));
    }
    // F(W(a)) of the wall coordinates W: -dF/da = -(dF/dW)^T dW/da by one
    // VJP (the gradient of a constraint bound - F <= 0).
    const ad::Var w = shape.wall_coordinates(av);
    const auto minus_wall_gradient = [&](const Tensor& dF) {
      ad::GradOptions keep;
      keep.retain_graph = true;  // one VJP per such constraint
      std::vector<double> r = ad::vjp({w}, {av}, {ad::constant(dF)}, keep)[0].value().to_vector();
      for (double& v : r) v = -v;
      return r;
    };
    if (s.area_fraction > 0.0) {
      Tensor dA;
      const double area = design::section_area(shape.wall(), w.value(), &dA);
      g.push_back(s.area_fraction * baseline_area_ - area);
      dg.push_back(minus_wall_gradient(dA));
    }
    if (s.le_radius_fraction > 0.0) {
      Tensor dR;
      const double radius = design::leading_edge_radius(shape.wall(), w.value(), &dR);
      g.push_back(s.le_radius_fraction * baseline_le_radius_ - radius);
      dg.push_back(minus_wall_gradient(dR));
    }
  }

 private:
  const AirfoilDesign& design_;
  euler::SteadyFlow& flow_;
  design::MeshDeformation deformation_;
  double baseline_area_ = 0.0;
  double baseline_le_radius_ = 0.0;
};

AirfoilDesign::AirfoilDesign(const mesh::Mesh& global, MPI_Comm comm,
                             std::unique_ptr<design::ShapeParametrization> shape,
                             AirfoilDesignSettings settings)
    : AirfoilDesign(mesh::DistributedMesh(global, comm), std::move(shape), std::move(settings)) {}

AirfoilDesign::AirfoilDesign(mesh::DistributedMesh dm,
                             std::unique_ptr<design::ShapeParametrization> shape,
                             AirfoilDesignSettings settings)
    : ShapeDesign(dm.comm(), settings, flows_on(dm)),
      shape_(checked(std::move(shape))),
      settings_(std::move(settings)),
      stations_(shape_->wall()),
      thickness_(stations_, *shape_) {
  CAMBER_INPUT_REQUIRE(settings_.thickness_fraction >= 0.0 && settings_.max_thickness_min >= 0.0 &&
                           settings_.area_fraction >= 0.0 && settings_.le_radius_fraction >= 0.0,
                       "AirfoilDesign: thickness_fraction, max_thickness_min, area_fraction and "
                       "le_radius_fraction must be >= 0");
  auto geometry = std::make_unique<Geometry>(*this, flow(0));
  airfoil_ = geometry.get();
  attach(std::move(geometry));
}

AirfoilDesign::~AirfoilDesign() = default;

mesh::DistributedMesh AirfoilDesign::mesh_at(const std::vector<double>& a) {
  const Tensor Xr = airfoil_->rank_rows(ad::constant(Tensor::from_host({n_design()}, a))).value();
  // The rows open with the local nodes, in the distributed mesh's order.
  const mesh::DistributedMesh& dm = flow(0).distributed_mesh();
  const index_t n_local = dm.n_local_nodes();
  const std::vector<double> x = Xr.to_vector();
  return dm.with_local_coordinates(Tensor::from_host(
      {n_local, 2}, std::vector<double>(x.begin(), x.begin() + 2 * n_local)));
}

DesignSample AirfoilDesign::sample(const std::vector<double>& a, double mach, double alpha_deg) {
  const index_t n = n_design();
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(a.size()) == n,
                       "AirfoilDesign::sample: " << a.size() << " shape variables for a "
                                                 << "parametrization of " << n);
  CAMBER_INPUT_REQUIRE(mach > 0.0, "AirfoilDesign::sample: Mach number " << mach << " (> 0)");
  DesignSample out;
  const ad::Var av = ad::variable(Tensor::from_host({n}, a));
  const ad::Var p = ad::variable(Tensor::from_host({2}, {alpha_deg, mach}));
  const ad::Var X = airfoil_->rank_rows(av);
  airfoil_->check(X.value());
  euler::SteadyFlow& f = flow(0);
  const ad::Var c = f.rank_coefficients(X, p);
  out.newton_iterations = f.report().newton_iterations;
  out.flow_seconds = f.report().solve_seconds;
  const std::vector<double> cv = c.value().to_vector();
  ad::GradOptions go;
  go.retain_graph = true;
  for (int m = 0; m < 3; ++m) {
    std::vector<double> w(3, 0.0);
    w[static_cast<size_t>(m)] = 1.0;
    const ad::Vars d = ad::vjp({c}, {av, p}, {ad::constant(Tensor::from_host({3}, w))}, go);
    std::vector<double> g = d[0].value().to_vector();
    const std::vector<double> gp = d[1].value().to_vector();
    g.push_back(gp[1]);  // mach
    g.push_back(gp[0]);  // alpha
    out.values[static_cast<size_t>(m)] = cv[static_cast<size_t>(m)];
    out.gradients[static_cast<size_t>(m)] = std::move(g);
    out.adjoint_iterations += f.report().adjoint_iterations;
    out.adjoint_seconds += f.report().adjoint_seconds;
  }
  // The largest thickness: linear in a at each station, so its gradient
  // is the row of the station that holds it (any one of a tie).
  const std::vector<double> t = thickness_(a);
  const size_t s = static_cast<size_t>(std::max_element(t.begin(), t.end()) - t.begin());
  out.values[3] = t[s];
  std::vector<double> gt(thickness_.jacobian()[s]);
  gt.push_back(0.0);
  gt.push_back(0.0);
  out.gradients[3] = std::move(gt);
  return out;
}

AirfoilDesignResult AirfoilDesign::run(const Report& report, bool restart) {
  AirfoilDesignResult result;
  static_cast<ShapeDesignResult&>(result) = ShapeDesign::run(report, restart);
  const Tensor a = Tensor::from_host({n_design()}, result.final_shape);
  result.final_wall = shape_->wall_coordinates(a);
  result.baseline_max_thickness = largest(thickness_.baseline());
  result.final_max_thickness = largest(thickness_(result.final_shape));
  result.baseline_area = airfoil_->baseline_area();
  result.final_area = design::section_area(shape_->wall(), result.final_wall);
  // Reported (NaN where the wall has no such measure, e.g. too few nodes).
  const auto le_radius = [&](const Tensor& w) {
    try {
      return design::leading_edge_radius(shape_->wall(), w);
    } catch (const Error&) {
      return std::numeric_limits<double>::quiet_NaN();
    }
  };
  result.baseline_le_radius = le_radius(shape_->wall_coordinates(Tensor({n_design()})));
  result.final_le_radius = le_radius(result.final_wall);
  return result;
}

}  // namespace camber::solvers::aero
