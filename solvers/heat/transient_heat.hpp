/// @file
/// Transient heat conduction with a spatially varying conductivity on a
/// distributed mesh, by the method of lines: cell-centred finite volumes in
/// space give the ODE system
///
/// @code
///   rho_c |cell c| dT_c/dt = -sum_f s_cf F_f + |cell c| q(x_c),
///   F_f = k_f |S_f| (T_L - T_R) / d_f          interior face, k_f = 2 k_L k_R / (k_L + k_R)
///   F_f = k_L |S_f| (T_L - g) / d_f            boundary face held at temperature g
///   F_f = 0                                    insulated boundary face
/// @endcode
///
/// (s_cf = +1 where c is the face's left cell, -1 where it is the right
/// one; d_f the orthogonal distance between the centroids, or from the
/// centroid to the face, as in solvers/heat/heat_conduction.hpp, with the same
/// second order on orthogonal meshes and the same inconsistency on skewed
/// ones), integrated in time by CVODES on SUNDIALS' parallel vectors
/// (solvers/ode/distributed_cvodes.hpp). The conductivity enters as its
/// logarithm m = log k per cell, so every value of m is a valid
/// conductivity; the harmonic mean at a face is the conductance of two
/// half-cells in series.
///
/// Derivatives. The face flux is written once, as a template on the
/// scalar. It is affine in T, F = a_L T_L + a_R T_R + b with coefficients
/// depending on (m_L, m_R), so one evaluation on nested Duals per face and
/// conductivity field (outer tangents T_L, T_R; inner m_L, m_R) gives the
/// coefficients and their m-derivatives exactly; every product the
/// integrator and its adjoint need is then gathered per owned cell from
/// them, without atomics or exponentials: f, (df/dT) v, (df/dT)^T w,
/// (df/dm)^T w and diag(df/dT). tests/heat checks them against finite
/// differences and each other (dot-product test) at 1, 2 and 4 ranks.
///
/// @code
///   mesh::DistributedMesh dm(mesh::rectangle(32, 32, 1.0, 1.0), comm);
///   solvers::heat::TransientHeatModel model;
///   model.boundary["left"] = solvers::heat::HeatBoundary::temperature(0.0);   // every marker needs one
///   model.source = [](double x, double y) { return 10.0; };
///   solvers::heat::TransientHeat heat(dm, model);                           // collective
///   heat.set_log_conductivity(std::vector<double>(dm.n_owned_cells(), 0.0));
///   solvers::ode::DistributedCvodes cv(heat.system(), {});
///   cv.reset(0.0, std::vector<double>(dm.n_owned_cells(), 0.0));
///   std::vector<double> T;
///   cv.advance(0.1, T);                                               // owned cells' T at t = 0.1
/// @endcode
///
/// Ownership: keeps a pointer to the DistributedMesh (which must outlive it
/// and whose halo exchange it uses) and its own work fields; the
/// ode::DistributedOdeSystem from system() refers to this object. Every product
/// is collective (halo exchanges of its inputs). Not thread-safe.
///
/// Units: lengths in m, k in W/(m K), rho_c in J/(m^3 K), q in W/m^3, T in
/// K, t in s.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/ode/distributed_cvodes.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::heat {

/// The condition on a boundary marker's faces.
struct HeatBoundary {
  enum class Kind { temperature, insulated };
  Kind kind = Kind::insulated;
  double value = 0.0;  ///< K, for Kind::temperature
  static HeatBoundary temperature(double t) { return {Kind::temperature, t}; }
  static HeatBoundary insulated() { return {Kind::insulated, 0.0}; }
};

struct TransientHeatModel {
  double heat_capacity = 1.0;  ///< rho c > 0, J/(m^3 K)
  /// One entry per boundary marker of the mesh (a marker without one, or
  /// an entry naming no marker, is bad input).
  std::map<std::string, HeatBoundary> boundary;
  /// q(x, y), W/m^3, sampled at the centroids; empty: no source.
  std::function<double(double x, double y)> source;
};

class TransientHeat {
 public:
  /// Collective. bad_input errors (on every rank): a marker without a
  /// condition or a condition for no marker, rho_c <= 0, a face whose
  /// centroids are not on opposite sides (orthogonal distance <= 0).
  TransientHeat(mesh::DistributedMesh& dm, TransientHeatModel model);

  index_t n_owned() const noexcept { return n_owned_; }
  mesh::DistributedMesh& mesh() const noexcept { return *dm_; }

  /// m = log k of the owned cells (n_owned finite values). Collective.
  void set_log_conductivity(const std::vector<double>& m);
  /// f(x_c, y_c) at the owned cells' centroids.
  std::vector<double> at_centroids(const std::function<double(double, double)>& f) const;
  /// Owned cells' volumes (areas in 2-D).
  std::vector<double> volumes() const;

  /// The ODE system (n_local = n_local_p = n_owned), its callbacks bound to
  /// this object.
  ode::DistributedOdeSystem system();

  // The products (each collective; arrays are the owned cells' rows).
  void rhs(const double* T, double* out);
  void jvp(const double* T, const double* v, double* out);
  void vjp_T(const double* T, const double* w, double* out);
  void vjp_m(const double* T, const double* w, double* out);
  void jacobian_diagonal(const double* T, double* out);

  /// S(m) = 1/2 sum over interior faces of |S_f|/d_f (m_L - m_R)^2 (a
  /// discrete H1 seminorm of a cell field m given on the owned cells; the
  /// smoothness penalty of the inverse problem), summed over ranks, and
  /// with `gradient` its gradient on the owned cells, each cell's sum in
  /// the partition-independent face order (the same bits at any rank
  /// count). Collective.
  double smoothness(const std::vector<double>& m, std::vector<double>* gradient = nullptr);

 private:
  enum class Product { rhs, jvp, vjp_T, vjp_m, diagonal };
  void apply(Product what, const double* T, const double* v, double* out);
  void load(const double* owned, Tensor& local);

  mesh::DistributedMesh* dm_;
  double heat_capacity_ = 1.0;
  index_t n_owned_ = 0, n_local_ = 0;
  mesh::OwnedCellFaces cell_faces_;
  Kokkos::View<index_t*> face_left_, face_right_;
  Kokkos::View<int*> face_kind_;         // 0 interior, 1 temperature, 2 insulated
  Kokkos::View<double*> face_weight_;    // |S| / d
  Kokkos::View<double*> face_value_;     // g on temperature faces
  Kokkos::View<double*> inv_capacity_;   // 1 / (rho_c |cell|), local cells
  Kokkos::View<double*> source_;         // q, owned cells
  Kokkos::View<double*> out_;            // n_owned
  Kokkos::View<double**> coef_;          // per face: the affine flux's coefficients (transient_heat.cpp)
  bool has_conductivity_ = false;
  Tensor m_, T_, v_;                     // n_local, ghosts from the halo exchange
  std::vector<double> volume_, cx_, cy_;
  // Host copies for smoothness(): the cell-face lists and face data.
  std::vector<index_t> host_offset_, host_face_, host_left_, host_right_;
  std::vector<double> host_weight_;
  Tensor s_;                             // n_local, for smoothness()
};

}  // namespace camber::solvers::heat
