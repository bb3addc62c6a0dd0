// Tests of the PETSc plumbing (session, error macro, handles, linear solve)
// and of the steady heat-conduction solver, at 1, 2 and 4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>

#include <camber/solvers/heat_conduction.hpp>
#include <camber/solvers/linear_solver.hpp>
#include <camber/solvers/petsc_error.hpp>
#include <camber/solvers/petsc_handle.hpp>
#include <camber/solvers/petsc_session.hpp>
#include <camber/error.hpp>
#include <camber/runtime.hpp>
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers {
namespace {

int world_size() { return comm_size(MPI_COMM_WORLD); }

// Runs `body`, expects a camber::Error of `kind` whose message contains
// every one of `needles`.
template <typename Body>
void expect_error(Body&& body, ErrorKind kind, std::initializer_list<const char*> needles) {
  try {
    body();
    ADD_FAILURE() << "expected camber::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.message();
    for (const char* needle : needles)
      EXPECT_NE(e.message().find(needle), std::string::npos)
          << "'" << needle << "' not in: " << e.message();
  }
}

TEST(PetscSession, NestedSessionDoesNotRestartOrFinalize) {
  ASSERT_TRUE(PetscSession::petsc_active());  // started by the environment
  const int before = PetscSession::live_sessions();
  {
    PetscSession inner("-heat_test_unused_option 1");
    EXPECT_FALSE(inner.started_petsc());
    EXPECT_EQ(PetscSession::live_sessions(), before + 1);
    PetscBool set = PETSC_FALSE;
    ASSERT_EQ(PetscOptionsHasName(nullptr, nullptr, "-heat_test_unused_option", &set), 0);
    EXPECT_TRUE(set);  // the options string reached PETSc's database
    ASSERT_EQ(PetscOptionsClearValue(nullptr, "-heat_test_unused_option"), 0);
  }
  EXPECT_EQ(PetscSession::live_sessions(), before);
  EXPECT_TRUE(PetscSession::petsc_active());
}

TEST(CheckPetsc, ForcedErrorBecomesCamberErrorWithPetscMessage) {
  KspHandle ksp;
  CAMBER_CHECK_PETSC(KSPCreate(PETSC_COMM_SELF, ksp.out()));
  // The session's return-only error handler keeps PETSc silent: the message
  // reaches the user once, through camber::Error.
  ::testing::internal::CaptureStderr();
  std::string message;
  ErrorKind kind = ErrorKind::bad_input;
  try {
    CAMBER_CHECK_PETSC(KSPSetType(ksp.get(), "no_such_krylov_method"));
  } catch (const Error& e) {
    message = e.message();
    kind = e.kind();
  }
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(kind, ErrorKind::failure);
  EXPECT_NE(message.find("KSPSetType(ksp.get(), \"no_such_krylov_method\")"), std::string::npos)
      << message;  // the call text
  EXPECT_NE(message.find("Unable to find requested KSP type no_such_krylov_method"),
            std::string::npos)
      << message;  // PETSc's own message
  EXPECT_TRUE(printed.empty()) << "PETSc printed: " << printed;
}

TEST(PetscHandle, MoveTransfersOwnershipAndResetDestroys) {
  VecHandle a;
  CAMBER_CHECK_PETSC(VecCreateSeq(PETSC_COMM_SELF, 3, a.out()));
  Vec raw = a.get();
  VecHandle b(std::move(a));
  EXPECT_FALSE(a);
  EXPECT_EQ(b.get(), raw);
  b.reset();
  EXPECT_FALSE(b);
}

TEST(BlockCellRange, CoversAllCellsWithNearlyEqualBlocks) {
  const index_t n_cells = 103;
  for (int parts : {1, 2, 3, 4, 7}) {
    index_t expected_begin = 0;
    for (int p = 0; p < parts; ++p) {
      const CellRange r = block_cell_range(n_cells, parts, p);
      EXPECT_EQ(r.begin, expected_begin);
      const index_t size = r.end - r.begin;
      EXPECT_TRUE(size == n_cells / parts || size == n_cells / parts + 1);
      expected_begin = r.end;
    }
    EXPECT_EQ(expected_begin, n_cells);
  }
}

HeatProblem linear_problem() {
  HeatProblem p;
  // Odd, unequal counts and a non-square domain with non-square cells, so
  // blocks split rows unevenly and x and y are not interchangeable.
  p.nx = 13;
  p.ny = 7;
  p.length_x_m = 2.0;
  p.length_y_m = 0.5;
  p.conductivity = 3.5;
  p.manufactured = "linear";
  return p;
}

// T = a + b x + c y is reproduced at the cell centres (the two-point flux is
// exact for linear T, also at the half-cell boundary distance), so only the
// linear solver's error remains. Tolerance: CG stops at a preconditioned
// residual ||B r|| <= 1e-12 ||B b||; with BoomerAMG B ~ A^-1 and
// kappa(B A) = O(1) (a few), so ||error||_2 <~ kappa(B A) 1e-12 ||T||_2.
// Here |T| <= 3 on 91 cells, ||T||_2 <= 3 sqrt(91) ~ 29, so every cell is
// within ~1e-10 (measured: ~1e-12). We check the computed T against the formula
// directly, not against the solver's own "exact" field.
TEST(SolveHeat, ReproducesLinearSolution) {
  const HeatProblem p = linear_problem();
  const HeatResult r = solve_heat(p, MPI_COMM_WORLD);
  const LocalQuadMesh mesh = local_mesh(p, r.cell_begin, r.cell_end);
  const auto t = r.temperature.to_vector();
  ASSERT_EQ(static_cast<index_t>(t.size()), r.cell_end - r.cell_begin);
  double worst = 0.0;
  for (size_t c = 0; c < t.size(); ++c) {
    const double x = mesh.centroids_xyz[3 * c];
    const double y = mesh.centroids_xyz[3 * c + 1];
    const double expected = 1.0 + 2.0 * x / p.length_x_m - 3.0 * y / p.length_y_m;
    worst = std::max(worst, std::abs(t[c] - expected));
  }
  EXPECT_LE(worst, 1e-10);
  EXPECT_LE(r.max_error, 1e-10);
  EXPECT_LE(r.l2_error, 1e-10);
  EXPECT_GT(r.iterations, 0);

  // The blocks of all ranks cover the grid exactly once.
  index_t local = r.cell_end - r.cell_begin;
  index_t total = 0;
  CAMBER_CHECK_MPI(MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_EQ(total, p.nx * p.ny);
}

// GAMG as an alternative preconditioner converges to the same solution.
TEST(SolveHeat, GamgPreconditionerAlsoConverges) {
  HeatProblem p = linear_problem();
  p.solver.preconditioner = "gamg";
  const HeatResult r = solve_heat(p, MPI_COMM_WORLD);
  EXPECT_LE(r.max_error, 1e-10);
}

// The smooth manufactured solution on a 32 x 32 grid of the unit square.
// This test checks that the right problem is solved and that the reported
// norms are what they claim; the order of accuracy is checked in
// tests/regression/. A wrong f or g gives errors of O(1) (|T| reaches
// e + 1 ~ 3.7), while the discretization error is O(h^2) ~ 1e-3 at
// h = 1/32, so the bounds 2e-3 (L2) and 4e-3 (max) separate the two.
TEST(SolveHeat, SmoothSolutionIsCloseAndNormsAreConsistent) {
  HeatProblem p;
  p.nx = 32;
  p.ny = 32;
  const HeatResult r = solve_heat(p, MPI_COMM_WORLD);
  EXPECT_LT(r.l2_error, 2e-3);
  EXPECT_LT(r.max_error, 4e-3);
  EXPECT_GT(r.l2_error, 0.0);

  // exact holds the manufactured T at the local cell centres.
  const LocalQuadMesh mesh = local_mesh(p, r.cell_begin, r.cell_end);
  const auto t = r.temperature.to_vector();
  const auto e = r.exact.to_vector();
  ASSERT_EQ(t.size(), e.size());
  const double pi = std::acos(-1.0);
  double sums[1] = {0.0};
  double local_max = 0.0;
  for (size_t c = 0; c < e.size(); ++c) {
    const double x = mesh.centroids_xyz[3 * c];
    const double y = mesh.centroids_xyz[3 * c + 1];
    EXPECT_NEAR(e[c], std::sin(pi * x) * std::exp(y) + x * y, 1e-14);
    sums[0] += (t[c] - e[c]) * (t[c] - e[c]) / (32.0 * 32.0);  // cell area
    local_max = std::max(local_max, std::abs(t[c] - e[c]));
  }
  double total[1] = {0.0};
  double global_max = 0.0;
  CAMBER_CHECK_MPI(MPI_Allreduce(sums, total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CAMBER_CHECK_MPI(
      MPI_Allreduce(&local_max, &global_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  // Sums in a different order: agreement to a few ulps of the result.
  EXPECT_NEAR(r.l2_error, std::sqrt(total[0]), 1e-14 * r.l2_error);
  EXPECT_EQ(r.max_error, global_max);
}

TEST(LocalMesh, QuadsAreCounterClockwiseWithCellArea) {
  HeatProblem p;
  p.nx = 5;
  p.ny = 3;
  p.length_x_m = 2.5;
  p.length_y_m = 0.6;
  const LocalQuadMesh whole = local_mesh(p, 0, 15);
  EXPECT_EQ(whole.n_points, 6 * 4);
  ASSERT_EQ(whole.connectivity.size(), 4u * 15u);
  ASSERT_EQ(whole.centroids_xyz.size(), 3u * 15u);
  for (size_t c = 0; c < 15; ++c) {
    double area = 0.0;  // shoelace: positive for counter-clockwise
    double cx = 0.0;
    double cy = 0.0;
    for (size_t v = 0; v < 4; ++v) {
      const auto a = static_cast<size_t>(whole.connectivity[4 * c + v]);
      const auto b = static_cast<size_t>(whole.connectivity[4 * c + (v + 1) % 4]);
      area += whole.points_xyz[3 * a] * whole.points_xyz[3 * b + 1] -
              whole.points_xyz[3 * b] * whole.points_xyz[3 * a + 1];
      cx += whole.points_xyz[3 * a] / 4.0;
      cy += whole.points_xyz[3 * a + 1] / 4.0;
    }
    EXPECT_NEAR(0.5 * area, 0.5 * 0.2, 1e-14);
    EXPECT_NEAR(cx, whole.centroids_xyz[3 * c], 1e-14);
    EXPECT_NEAR(cy, whole.centroids_xyz[3 * c + 1], 1e-14);
  }
  // A block starting mid-row uses only the corners of its cells.
  const LocalQuadMesh piece = local_mesh(p, 3, 7);  // cells (3,0) (4,0) (0,1) (1,1)
  EXPECT_EQ(piece.n_points, 6 + 6);
  EXPECT_EQ(piece.connectivity.size(), 16u);
}

TEST(SolveHeat, BadInputIsReportedAsBadInput) {
  auto with = [](auto change) {
    HeatProblem p;
    change(p);
    return p;
  };
  expect_error([&] { solve_heat(with([](HeatProblem& p) { p.nx = 1; }), MPI_COMM_WORLD); },
               ErrorKind::bad_input, {"nx"});
  expect_error([&] { solve_heat(with([](HeatProblem& p) { p.ny = 0; }), MPI_COMM_WORLD); },
               ErrorKind::bad_input, {"ny"});
  expect_error(
      [&] { solve_heat(with([](HeatProblem& p) { p.length_y_m = -1.0; }), MPI_COMM_WORLD); },
      ErrorKind::bad_input, {"length_y_m"});
  expect_error(
      [&] { solve_heat(with([](HeatProblem& p) { p.conductivity = 0.0; }), MPI_COMM_WORLD); },
      ErrorKind::bad_input, {"conductivity"});
  expect_error(
      [&] { solve_heat(with([](HeatProblem& p) { p.manufactured = "cosine"; }), MPI_COMM_WORLD); },
      ErrorKind::bad_input, {"cosine", "sin_exp"});
  expect_error(
      [&] {
        solve_heat(with([](HeatProblem& p) { p.solver.method = "no_such_method"; }),
                   MPI_COMM_WORLD);
      },
      ErrorKind::bad_input, {"method", "no_such_method"});
  expect_error(
      [&] {
        solve_heat(with([](HeatProblem& p) { p.solver.preconditioner = "no_such_pc"; }),
                   MPI_COMM_WORLD);
      },
      ErrorKind::bad_input, {"preconditioner", "no_such_pc"});
  // 2 x 2 = 4 cells cannot be shared by 5 ranks.
  HeatProblem tiny;
  tiny.nx = 2;
  tiny.ny = 2;
  expect_error([&] { validate_heat_problem(tiny, 5); }, ErrorKind::bad_input,
               {"4 cells", "5 ranks"});
  EXPECT_NO_THROW(validate_heat_problem(tiny, 4));
  if (world_size() > 4) {
    expect_error([&] { solve_heat(tiny, MPI_COMM_WORLD); }, ErrorKind::bad_input, {"ranks"});
  }
}

// An unconverged solve is a failure naming PETSc's reason; the options
// prefix "heat_" lets PETSc options override the struct.
TEST(SolveHeat, DivergenceIsAFailureAndHeatOptionsOverride) {
  HeatProblem p;
  p.nx = 32;
  p.ny = 32;
  p.solver.max_iterations = 1;
  expect_error([&] { solve_heat(p, MPI_COMM_WORLD); }, ErrorKind::failure,
               {"DIVERGED_ITS", "1 iterations"});

  HeatProblem q;
  q.nx = 32;
  q.ny = 32;
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-heat_ksp_max_it", "2"), 0);
  std::string message;
  try {
    solve_heat(q, MPI_COMM_WORLD);
  } catch (const Error& e) {
    message = e.message();
  }
  ASSERT_EQ(PetscOptionsClearValue(nullptr, "-heat_ksp_max_it"), 0);
  EXPECT_NE(message.find("DIVERGED_ITS after 2 iterations"), std::string::npos) << message;
  EXPECT_NO_THROW(solve_heat(q, MPI_COMM_WORLD));
}

}  // namespace
}  // namespace camber::solvers
