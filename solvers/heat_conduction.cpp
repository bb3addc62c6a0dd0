#include <camber/solvers/heat_conduction.hpp>

#include <Kokkos_Core.hpp>
#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <camber/solvers/petsc_error.hpp>
#include <camber/solvers/petsc_handle.hpp>
#include <camber/error.hpp>
#include <camber/kokkos_math.hpp>
#include <camber/runtime.hpp>
#include <camber/timer.hpp>

namespace camber::solvers {

namespace detail {

// Manufactured solutions, evaluable inside kernels.
//
// sin_exp: T = sin(pi x/Lx) e^(y/Ly) + x y/(Lx Ly).
//   T_xx = -(pi/Lx)^2 sin(pi x/Lx) e^(y/Ly),  T_yy = (1/Ly^2) sin(pi x/Lx) e^(y/Ly),
//   and x y is harmonic, so  f = -k (T_xx + T_yy)
//                              = k ((pi/Lx)^2 - 1/Ly^2) sin(pi x/Lx) e^(y/Ly).
// linear: T = 1 + 2 x/Lx - 3 y/Ly, f = 0; the two-point flux is exact for
//   it, interior and boundary, so the discrete solution equals T at the
//   cell centres up to the linear solver's tolerance.
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

// The five matrix entries of each local row, in ascending column order
// (south, west, centre, east, north); a missing neighbour has column -1,
// which MatSetValues ignores. LayoutRight so a row is contiguous on the host.
struct HeatRows {
  Kokkos::View<PetscInt* [5], Kokkos::LayoutRight> columns;
  Kokkos::View<double* [5], Kokkos::LayoutRight> values;
  Kokkos::View<double*> rhs;
  Kokkos::View<double*> exact;
};

ManufacturedHeat manufactured_for(const HeatProblem& p) {
  ManufacturedHeat m;
  m.kind = p.manufactured == "linear" ? ManufacturedHeat::linear : ManufacturedHeat::sin_exp;
  m.lx = p.length_x_m;
  m.ly = p.length_y_m;
  m.k = p.conductivity;
  return m;
}

// Not in an anonymous namespace: CUDA's extended lambdas need an enclosing
// function with external linkage.
HeatRows assemble_heat_rows(const HeatProblem& p, index_t begin, index_t end) {
  const index_t n_local = end - begin;
  HeatRows rows;
  rows.columns = decltype(rows.columns)("heat_columns", n_local);
  rows.values = decltype(rows.values)("heat_values", n_local);
  rows.rhs = Kokkos::View<double*>("heat_rhs", n_local);
  rows.exact = Kokkos::View<double*>("heat_exact", n_local);

  const index_t nx = p.nx;
  const index_t ny = p.ny;
  const double lx = p.length_x_m;
  const double ly = p.length_y_m;
  const double hx = lx / static_cast<double>(nx);
  const double hy = ly / static_cast<double>(ny);
  // Integrated form: flux through a face = k * |face| / distance * jump.
  // Vertical faces have length hy and centre distance hx; horizontal ones
  // the reverse. Boundary faces: distance h/2, so twice the coefficient.
  const double wx = p.conductivity * hy / hx;
  const double wy = p.conductivity * hx / hy;
  const double area = hx * hy;
  const ManufacturedHeat m = manufactured_for(p);
  const auto columns = rows.columns;
  const auto values = rows.values;
  const auto rhs = rows.rhs;
  const auto exact = rows.exact;

  Kokkos::parallel_for(
      "camber::solvers::assemble_heat", Kokkos::RangePolicy<>(0, n_local),
      KOKKOS_LAMBDA(const index_t r) {
        const index_t c = begin + r;
        const index_t i = c % nx;
        const index_t j = c / nx;
        const double x = (static_cast<double>(i) + 0.5) * hx;
        const double y = (static_cast<double>(j) + 0.5) * hy;
        double diag = 0.0;
        double b = m.source(x, y) * area;  // midpoint rule, O(h^2) consistent
        for (int s = 0; s < 5; ++s) {
          columns(r, s) = -1;
          values(r, s) = 0.0;
        }
        if (j > 0) {
          columns(r, 0) = static_cast<PetscInt>(c - nx);
          values(r, 0) = -wy;
          diag += wy;
        } else {
          diag += 2.0 * wy;
          b += 2.0 * wy * m.temperature(x, 0.0);
        }
        if (i > 0) {
          columns(r, 1) = static_cast<PetscInt>(c - 1);
          values(r, 1) = -wx;
          diag += wx;
        } else {
          diag += 2.0 * wx;
          b += 2.0 * wx * m.temperature(0.0, y);
        }
        if (i < nx - 1) {
          columns(r, 3) = static_cast<PetscInt>(c + 1);
          values(r, 3) = -wx;
          diag += wx;
        } else {
          diag += 2.0 * wx;
          b += 2.0 * wx * m.temperature(lx, y);
        }
        if (j < ny - 1) {
          columns(r, 4) = static_cast<PetscInt>(c + nx);
          values(r, 4) = -wy;
          diag += wy;
        } else {
          diag += 2.0 * wy;
          b += 2.0 * wy * m.temperature(x, ly);
        }
        columns(r, 2) = static_cast<PetscInt>(c);
        values(r, 2) = diag;
        rhs(r) = b;
        exact(r) = m.temperature(x, y);
      });
  Kokkos::fence();
  return rows;
}

}  // namespace detail

std::vector<std::string> heat_manufactured_solutions() { return {"sin_exp", "linear"}; }

CellRange block_cell_range(index_t n_cells, int n_parts, int part) {
  CAMBER_REQUIRE(n_parts > 0 && part >= 0 && part < n_parts,
                 "block_cell_range: part " << part << " of " << n_parts);
  CAMBER_REQUIRE(n_cells >= 0, "block_cell_range: negative cell count " << n_cells);
  const index_t base = n_cells / n_parts;
  const index_t extra = n_cells % n_parts;
  CellRange range;
  range.begin = part * base + std::min<index_t>(part, extra);
  range.end = range.begin + base + (part < extra ? 1 : 0);
  return range;
}

void validate_heat_problem(const HeatProblem& p, int n_ranks) {
  CAMBER_INPUT_REQUIRE(p.nx >= 2, "heat problem: nx (cells along x) must be >= 2, got " << p.nx);
  CAMBER_INPUT_REQUIRE(p.ny >= 2, "heat problem: ny (cells along y) must be >= 2, got " << p.ny);
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
  constexpr index_t max_cells = std::numeric_limits<PetscInt>::max();
  CAMBER_INPUT_REQUIRE(p.nx <= max_cells / p.ny,
                       "heat problem: nx * ny = " << p.nx << " * " << p.ny
                           << " cells exceeds PETSc's index range (" << max_cells
                           << "; this PETSc uses 32-bit indices)");
  CAMBER_INPUT_REQUIRE(n_ranks >= 1, "heat problem: no ranks");
  CAMBER_INPUT_REQUIRE(p.nx * p.ny >= n_ranks,
                       "heat problem: " << p.nx * p.ny << " cells (nx * ny = " << p.nx
                           << " * " << p.ny << ") on " << n_ranks
                           << " ranks; every rank needs at least one cell: refine "
                              "the mesh or run on fewer ranks");
}

HeatResult solve_heat(const HeatProblem& problem, MPI_Comm comm) {
  const int n_ranks = comm_size(comm);
  const int rank = comm_rank(comm);
  validate_heat_problem(problem, n_ranks);

  const index_t n_cells = problem.nx * problem.ny;
  const CellRange range = block_cell_range(n_cells, n_ranks, rank);
  const index_t n_local = range.end - range.begin;

  MatHandle A;
  VecHandle b;
  VecHandle x;
  detail::HeatRows rows;
  {
    ScopedTimer timer("assemble");
    rows = detail::assemble_heat_rows(problem, range.begin, range.end);
    const auto columns = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows.columns);
    const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows.values);
    const auto rhs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows.rhs);

    // Exact preallocation: entries in our own column block (diagonal part)
    // and outside it (off-diagonal part), at most 5 per row in all.
    std::vector<PetscInt> d_nnz(static_cast<size_t>(n_local), 0);
    std::vector<PetscInt> o_nnz(static_cast<size_t>(n_local), 0);
    for (index_t r = 0; r < n_local; ++r) {
      for (int s = 0; s < 5; ++s) {
        const PetscInt col = columns(r, s);
        if (col < 0) continue;
        if (col >= range.begin && col < range.end) {
          ++d_nnz[static_cast<size_t>(r)];
        } else {
          ++o_nnz[static_cast<size_t>(r)];
        }
      }
    }
    const auto local_size = static_cast<PetscInt>(n_local);
    const auto global_size = static_cast<PetscInt>(n_cells);
    CAMBER_CHECK_PETSC(MatCreate(comm, A.out()));
    CAMBER_CHECK_PETSC(MatSetSizes(A.get(), local_size, local_size, global_size, global_size));
    // AIJ is MPIAIJ on more than one rank and SeqAIJ on one; both
    // preallocation calls are made, the one for the other type is a no-op.
    CAMBER_CHECK_PETSC(MatSetType(A.get(), MATAIJ));
    CAMBER_CHECK_PETSC(MatSeqAIJSetPreallocation(A.get(), 0, d_nnz.data()));
    CAMBER_CHECK_PETSC(MatMPIAIJSetPreallocation(A.get(), 0, d_nnz.data(), 0, o_nnz.data()));
    CAMBER_CHECK_PETSC(MatSetOption(A.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    for (index_t r = 0; r < n_local; ++r) {
      const PetscInt row = static_cast<PetscInt>(range.begin + r);
      CAMBER_CHECK_PETSC(
          MatSetValues(A.get(), 1, &row, 5, &columns(r, 0), &values(r, 0), INSERT_VALUES));
    }
    CAMBER_CHECK_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
    CAMBER_CHECK_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
    // The two-point operator is symmetric; preconditioners may use it.
    CAMBER_CHECK_PETSC(MatSetOption(A.get(), MAT_SYMMETRIC, PETSC_TRUE));
    CAMBER_CHECK_PETSC(MatSetOption(A.get(), MAT_SYMMETRY_ETERNAL, PETSC_TRUE));

    CAMBER_CHECK_PETSC(MatCreateVecs(A.get(), x.out(), b.out()));
    PetscScalar* b_array = nullptr;
    CAMBER_CHECK_PETSC(VecGetArray(b.get(), &b_array));
    for (index_t r = 0; r < n_local; ++r) b_array[r] = rhs(r);
    CAMBER_CHECK_PETSC(VecRestoreArray(b.get(), &b_array));
  }

  LinearSolveReport report;
  {
    ScopedTimer timer("solve");
    report = solve_linear(A.get(), b.get(), x.get(), problem.solver, "heat_");
  }

  HeatResult result;
  result.cell_begin = range.begin;
  result.cell_end = range.end;
  result.iterations = report.iterations;
  result.residual_norm = report.residual_norm;
  {
    const PetscScalar* x_array = nullptr;
    CAMBER_CHECK_PETSC(VecGetArrayRead(x.get(), &x_array));
    std::vector<double> local(x_array, x_array + n_local);
    CAMBER_CHECK_PETSC(VecRestoreArrayRead(x.get(), &x_array));
    result.temperature = Tensor({n_local}, "heat_temperature");
    result.temperature.assign(local);
  }
  result.exact = Tensor({n_local}, "heat_exact");
  Kokkos::deep_copy(result.exact.view(), rows.exact);

  const double area = (problem.length_x_m / static_cast<double>(problem.nx)) *
                      (problem.length_y_m / static_cast<double>(problem.ny));
  const Tensor error = sub(result.temperature, result.exact);
  const double local_norm = error.norm2();
  double sums[1] = {local_norm * local_norm * area};
  double global_sums[1] = {0.0};
  CAMBER_CHECK_MPI(MPI_Allreduce(sums, global_sums, 1, MPI_DOUBLE, MPI_SUM, comm));
  double local_max = error.max_abs();
  CAMBER_CHECK_MPI(
      MPI_Allreduce(&local_max, &result.max_error, 1, MPI_DOUBLE, MPI_MAX, comm));
  result.l2_error = std::sqrt(global_sums[0]);
  return result;
}

LocalQuadMesh local_mesh(const HeatProblem& problem, index_t cell_begin, index_t cell_end) {
  validate_heat_problem(problem, 1);
  const index_t nx = problem.nx;
  const index_t n_cells = nx * problem.ny;
  CAMBER_REQUIRE(0 <= cell_begin && cell_begin <= cell_end && cell_end <= n_cells,
                 "local_mesh: cell range [" << cell_begin << ", " << cell_end
                                            << ") is not inside [0, " << n_cells << ")");
  const double hx = problem.length_x_m / static_cast<double>(nx);
  const double hy = problem.length_y_m / static_cast<double>(problem.ny);

  LocalQuadMesh mesh;
  mesh.cell_begin = cell_begin;
  mesh.cell_end = cell_end;
  const index_t n_local = cell_end - cell_begin;
  mesh.connectivity.reserve(static_cast<size_t>(4 * n_local));
  mesh.centroids_xyz.reserve(static_cast<size_t>(3 * n_local));
  if (n_local == 0) return mesh;

  // The block spans cell rows j_first..j_last, hence node rows
  // j_first..j_last + 1; number the nodes used in order of first use.
  const index_t j_first = cell_begin / nx;
  const index_t j_last = (cell_end - 1) / nx;
  const index_t row_nodes = nx + 1;
  std::vector<index_t> local_id(static_cast<size_t>((j_last - j_first + 2) * row_nodes), -1);
  auto point = [&](index_t i, index_t j) {
    index_t& id = local_id[static_cast<size_t>((j - j_first) * row_nodes + i)];
    if (id < 0) {
      id = mesh.n_points++;
      mesh.points_xyz.push_back(static_cast<double>(i) * hx);
      mesh.points_xyz.push_back(static_cast<double>(j) * hy);
      mesh.points_xyz.push_back(0.0);
    }
    return id;
  };
  for (index_t c = cell_begin; c < cell_end; ++c) {
    const index_t i = c % nx;
    const index_t j = c / nx;
    mesh.connectivity.push_back(point(i, j));
    mesh.connectivity.push_back(point(i + 1, j));
    mesh.connectivity.push_back(point(i + 1, j + 1));
    mesh.connectivity.push_back(point(i, j + 1));
    mesh.centroids_xyz.push_back((static_cast<double>(i) + 0.5) * hx);
    mesh.centroids_xyz.push_back((static_cast<double>(j) + 0.5) * hy);
    mesh.centroids_xyz.push_back(0.0);
  }
  return mesh;
}

}  // namespace camber::solvers
