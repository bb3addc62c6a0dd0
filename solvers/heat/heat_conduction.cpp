#include <camber/solvers/heat/heat_conduction.hpp>
#include <camber/solvers/petsc/petsc_numbering.hpp>

#include <Kokkos_Core.hpp>
#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/core/timer.hpp>

namespace camber::solvers::heat {

namespace detail {

// Manufactured solutions, evaluable inside kernels.
//
// sin_exp: T = sin(pi x/Lx) e^(y/Ly) + x y/(Lx Ly).
//   T_xx = -(pi/Lx)^2 sin(pi x/Lx) e^(y/Ly),  T_yy = (1/Ly^2) sin(pi x/Lx) e^(y/Ly),
//   and x y is harmonic, so  f = -k (T_xx + T_yy)
//                              = k ((pi/Lx)^2 - 1/Ly^2) sin(pi x/Lx) e^(y/Ly).
// linear: T = 1 + 2 x/Lx - 3 y/Ly, f = 0; on an orthogonal mesh the
//   two-point flux is exact for it, interior and boundary, so the discrete
//   solution equals T at the centroids up to the linear solver's tolerance.
struct ManufacturedHeat {
  enum Kind : int { sin_exp = 0, linear = 1 };
  int kind = sin_exp;
  double lx = 1.0;
  double ly = 1.0;
  double k = 1.0;

  KOKKOS_INLINE_FUNCTION double temperature(double x, double y) const {
    if (kind == linear) return 1.0 + 2.0 * x / lx - 3.0 * y / ly;
    const double pi = 3.14159265358979323846;
    return kmath::sin(pi * x / lx) * kmath::exp(y / ly) + x * y / (lx * ly);
  }
  KOKKOS_INLINE_FUNCTION double source(double x, double y) const {
    if (kind == linear) return 0.0;
    const double pi = 3.14159265358979323846;
    return k * ((pi / lx) * (pi / lx) - 1.0 / (ly * ly)) * kmath::sin(pi * x / lx) *
           kmath::exp(y / ly);
  }
};

ManufacturedHeat manufactured_for(const HeatProblem& p) {
  ManufacturedHeat m;
  m.kind = p.manufactured == "linear" ? ManufacturedHeat::linear : ManufacturedHeat::sin_exp;
  m.lx = p.length_x_m;
  m.ly = p.length_y_m;
  m.k = p.conductivity;
  return m;
}

// What the assembly needs of each face of an owned cell (faces 0 ..
// n_owned_faces-1 of the local mesh):
//   coefficient   k |S| / d, with d the orthogonal distance (header comment);
//   distance      d (<= 0 or NaN marks a face the scheme cannot use);
//   cos_angle     d / |x_R - x_L| (or d / |x_f - x_L|): cosine of the
//                 face's non-orthogonality;
//   boundary_value g(x_f) on boundary faces, 0 on interior ones.
struct HeatFaces {
  Kokkos::View<double*> coefficient;
  Kokkos::View<double*> distance;
  Kokkos::View<double*> cos_angle;
  Kokkos::View<double*> boundary_value;
};

// Not in an anonymous namespace: CUDA's extended lambdas need an enclosing
// function with external linkage.
HeatFaces heat_faces(const mesh::Mesh& local, const mesh::Geometry& g, index_t n_faces,
                     const ManufacturedHeat& m) {
  HeatFaces faces;
  faces.coefficient = Kokkos::View<double*>("heat_face_coefficient", n_faces);
  faces.distance = Kokkos::View<double*>("heat_face_distance", n_faces);
  faces.cos_angle = Kokkos::View<double*>("heat_face_cos_angle", n_faces);
  faces.boundary_value = Kokkos::View<double*>("heat_face_boundary_value", n_faces);
  const auto left = local.face_left();
  const auto right = local.face_right();
  const auto centroid = g.cell_centroid;
  const auto normal = g.face_normal;
  const auto area = g.face_area;
  const auto center = g.face_center;
  const auto coefficient = faces.coefficient;
  const auto distance = faces.distance;
  const auto cos_angle = faces.cos_angle;
  const auto boundary_value = faces.boundary_value;
  Kokkos::parallel_for(
      "camber::solvers::heat_faces", Kokkos::RangePolicy<>(0, n_faces),
      KOKKOS_LAMBDA(const index_t f) {
        const index_t l = left(f);
        const index_t r = right(f);
        // Unit normal, left -> right (outward at the boundary).
        const double s = area(f);
        const double nx = normal(f, 0) / s;
        const double ny = normal(f, 1) / s;
        // To the neighbour's centroid, or to the face centre.
        const double ex = (r >= 0 ? centroid(r, 0) : center(f, 0)) - centroid(l, 0);
        const double ey = (r >= 0 ? centroid(r, 1) : center(f, 1)) - centroid(l, 1);
        const double d = ex * nx + ey * ny;
        distance(f) = d;
        coefficient(f) = m.k * s / d;
        cos_angle(f) = d / kmath::sqrt(ex * ex + ey * ey);
        boundary_value(f) = r >= 0 ? 0.0 : m.temperature(center(f, 0), center(f, 1));
      });
  Kokkos::fence();
  return faces;
}

// Source f(x_c) |cell| (midpoint rule, O(h^2) consistent) of the owned cells
// and the manufactured T at every local centroid, ghosts included.
void heat_cells(const mesh::Geometry& g, index_t n_owned, const ManufacturedHeat& m,
                const Kokkos::View<double*>& source, const Kokkos::View<double*>& exact) {
  const auto centroid = g.cell_centroid;
  const auto volume = g.cell_volume;
  Kokkos::parallel_for(
      "camber::solvers::heat_cells", Kokkos::RangePolicy<>(0, static_cast<index_t>(exact.extent(0))),
      KOKKOS_LAMBDA(const index_t c) {
        const double x = centroid(c, 0);
        const double y = centroid(c, 1);
        exact(c) = m.temperature(x, y);
        if (c < n_owned) source(c) = m.source(x, y) * volume(c);
      });
  Kokkos::fence();
}

}  // namespace detail

namespace {


// The mesh checks of solve_heat, agreed by all ranks (the message of the
// lowest failing rank is raised on every rank).
void check_mesh(const mesh::DistributedMesh& dm, const mesh::Geometry& g,
                const detail::HeatFaces& faces) {
  const MPI_Comm comm = dm.comm();
  // Every rank computes the same global count: no disagreement possible.
  constexpr std::int64_t max_rows = std::numeric_limits<PetscInt>::max();
  CAMBER_INPUT_REQUIRE(dm.n_global_cells() <= max_rows,
                       "heat: " << dm.n_global_cells() << " cells exceed PETSc's index range ("
                                << max_rows << "; this PETSc uses 32-bit indices)");
  const mesh::Mesh& local = dm.local();
  const index_t n_faces = dm.n_owned_faces();
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_right());
  const auto marker =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_marker());
  const auto center = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_center);
  const auto distance =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), faces.distance);
  collective_guard(comm, [&] {
    for (index_t f = 0; f < n_faces; ++f) {
      CAMBER_INPUT_REQUIRE(right(f) >= 0 || marker(f) >= 0,
                           "heat: the boundary face centred at ("
                               << center(f, 0) << ", " << center(f, 1)
                               << ") has no marker; every boundary face needs one (each gets "
                                  "the Dirichlet condition T = g)");
      CAMBER_INPUT_REQUIRE(distance(f) > 0.0,
                           "heat: at the face centred at ("
                               << center(f, 0) << ", " << center(f, 1)
                               << ") the cell centroid"
                               << (right(f) >= 0 ? "s do not lie on opposite sides of the face"
                                                 : " lies on the outer side of the face")
                               << " (orthogonal distance " << distance(f)
                               << "); the mesh is too distorted for the two-point flux");
    }
  });
}

}  // namespace

std::vector<std::string> heat_manufactured_solutions() { return {"sin_exp", "linear"}; }

void validate_heat_problem(const HeatProblem& p) {
  CAMBER_INPUT_REQUIRE(std::isfinite(p.length_x_m) && p.length_x_m > 0.0,
                       "heat problem: length_x_m must be a positive length, got "
                           << p.length_x_m);
  CAMBER_INPUT_REQUIRE(std::isfinite(p.length_y_m) && p.length_y_m > 0.0,
                       "heat problem: length_y_m must be a positive length, got "
                           << p.length_y_m);
  CAMBER_INPUT_REQUIRE(std::isfinite(p.conductivity) && p.conductivity > 0.0,
                       "heat problem: conductivity must be > 0 W/(m K), got "
                           << p.conductivity);
  const auto known = heat_manufactured_solutions();
  CAMBER_INPUT_REQUIRE(std::find(known.begin(), known.end(), p.manufactured) != known.end(),
                       "heat problem: unknown manufactured solution '"
                           << p.manufactured << "'; use sin_exp or linear");
}

HeatResult solve_heat(const mesh::DistributedMesh& dm, const HeatProblem& problem) {
  validate_heat_problem(problem);
  const MPI_Comm comm = dm.comm();
  const mesh::Mesh& local = dm.local();
  const index_t n_owned = dm.n_owned_cells();
  const index_t n_local = dm.n_local_cells();
  const index_t n_faces = dm.n_owned_faces();
  const detail::ManufacturedHeat m = detail::manufactured_for(problem);

  const mesh::Geometry g = mesh::compute_geometry(local);
  const detail::HeatFaces faces = detail::heat_faces(local, g, n_faces, m);
  check_mesh(dm, g, faces);
  Kokkos::View<double*> source("heat_source", n_owned);
  Kokkos::View<double*> exact("heat_exact", n_local);
  detail::heat_cells(g, n_owned, m, source, exact);

  petsc::MatHandle A;
  petsc::VecHandle b;
  petsc::VecHandle x;
  {
    ScopedTimer timer("assemble");
    const std::vector<PetscInt> row = petsc::petsc_cell_numbers(dm);
    const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_left());
    const auto right =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_right());
    const auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), faces.coefficient);
    const auto gf =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), faces.boundary_value);
    const auto f_vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), source);

    // Preallocation from the face graph: the diagonal, and one entry per
    // interior face of a row's cell, in this rank's column block (an owned
    // neighbour) or outside it (a ghost).
    std::vector<PetscInt> d_nnz(static_cast<size_t>(n_owned), 1);
    std::vector<PetscInt> o_nnz(static_cast<size_t>(n_owned), 0);
    for (index_t f = 0; f < n_faces; ++f) {
      const index_t l = left(f);
      const index_t r = right(f);
      if (r < 0) continue;
      for (const auto& [cell, other] : {std::pair<index_t, index_t>{l, r}, {r, l}})
        if (cell < n_owned) ++(other < n_owned ? d_nnz : o_nnz)[static_cast<size_t>(cell)];
    }
    const auto local_size = static_cast<PetscInt>(n_owned);
    const auto global_size = static_cast<PetscInt>(dm.n_global_cells());
    CAMBER_CHECK_PETSC(MatCreate(comm, A.out()));
    CAMBER_CHECK_PETSC(MatSetSizes(A.get(), local_size, local_size, global_size, global_size));
    // AIJ is MPIAIJ on more than one rank and SeqAIJ on one; both
    // preallocation calls are made, the one for the other type is a no-op.
    CAMBER_CHECK_PETSC(MatSetType(A.get(), MATAIJ));
    CAMBER_CHECK_PETSC(MatSeqAIJSetPreallocation(A.get(), 0, d_nnz.data()));
    CAMBER_CHECK_PETSC(MatMPIAIJSetPreallocation(A.get(), 0, d_nnz.data(), 0, o_nnz.data()));
    CAMBER_CHECK_PETSC(MatSetOption(A.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));

    std::vector<double> rhs(f_vol.data(), f_vol.data() + n_owned);
    // Each face adds its flux to the rows of its owned cells only: a face
    // between ranks is seen by both and adds once to each side's row, so
    // nothing is sent through PETSc's stash.
    for (index_t f = 0; f < n_faces; ++f) {
      const index_t l = left(f);
      const index_t r = right(f);
      const PetscInt rl = row[static_cast<size_t>(l)];
      if (r < 0) {  // Dirichlet: k |S| (T_L - g) / d
        CAMBER_CHECK_PETSC(MatSetValue(A.get(), rl, rl, w(f), ADD_VALUES));
        rhs[static_cast<size_t>(l)] += w(f) * gf(f);
        continue;
      }
      const PetscInt rr = row[static_cast<size_t>(r)];
      if (l < n_owned) {
        const PetscInt cols[2] = {rl, rr};
        const PetscScalar vals[2] = {w(f), -w(f)};
        CAMBER_CHECK_PETSC(MatSetValues(A.get(), 1, &rl, 2, cols, vals, ADD_VALUES));
      }
      if (r < n_owned) {
        const PetscInt cols[2] = {rl, rr};
        const PetscScalar vals[2] = {-w(f), w(f)};
        CAMBER_CHECK_PETSC(MatSetValues(A.get(), 1, &rr, 2, cols, vals, ADD_VALUES));
      }
    }
    CAMBER_CHECK_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
    CAMBER_CHECK_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
    // The two-point operator is symmetric: the entry of a face between ranks
    // is computed from the same centroids on both (ghost geometry equals the
    // owner's), so A_LR and A_RL are equal bit for bit.
    CAMBER_CHECK_PETSC(MatSetOption(A.get(), MAT_SYMMETRIC, PETSC_TRUE));
    CAMBER_CHECK_PETSC(MatSetOption(A.get(), MAT_SYMMETRY_ETERNAL, PETSC_TRUE));

    CAMBER_CHECK_PETSC(MatCreateVecs(A.get(), x.out(), b.out()));
    PetscScalar* b_array = nullptr;
    CAMBER_CHECK_PETSC(VecGetArray(b.get(), &b_array));
    std::copy(rhs.begin(), rhs.end(), b_array);
    CAMBER_CHECK_PETSC(VecRestoreArray(b.get(), &b_array));
  }

  petsc::LinearSolveReport report;
  {
    ScopedTimer timer("solve");
    report = petsc::solve_linear(A.get(), b.get(), x.get(), problem.solver, "heat_");
  }

  HeatResult result;
  result.iterations = report.iterations;
  result.residual_norm = report.residual_norm;
  {
    const PetscScalar* x_array = nullptr;
    CAMBER_CHECK_PETSC(VecGetArrayRead(x.get(), &x_array));
    std::vector<double> values(x_array, x_array + n_owned);
    CAMBER_CHECK_PETSC(VecRestoreArrayRead(x.get(), &x_array));
    values.resize(static_cast<size_t>(n_local), 0.0);
    result.temperature = Tensor::from_host({n_local}, values);
    par::HaloExchange halo(dm.distribution());
    halo.forward(result.temperature);
  }
  result.exact = Tensor({n_local}, "heat_exact");
  Kokkos::deep_copy(result.exact.view(), exact);

  // Errors over owned cells, volume-weighted; each cell counted once.
  const auto t = result.temperature.host();
  const auto e = result.exact.host();
  const auto volume = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);
  double sum = 0.0;
  double worst = 0.0;
  for (index_t c = 0; c < n_owned; ++c) {
    const double err = t(c) - e(c);
    sum += err * err * volume(c);
    worst = std::max(worst, std::abs(err));
  }
  result.l2_error = std::sqrt(par::allreduce_sum(sum, comm));
  result.max_error = par::allreduce_max(worst, comm);

  const auto cos_angle = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), faces.cos_angle);
  double min_cos = 1.0;
  for (index_t f = 0; f < n_faces; ++f) min_cos = std::min(min_cos, cos_angle(f));
  const double degrees = std::acos(std::clamp(min_cos, -1.0, 1.0)) * 180.0 / std::acos(-1.0);
  result.max_non_orthogonality_deg = par::allreduce_max(degrees, comm);
  return result;
}

}  // namespace camber::solvers::heat
