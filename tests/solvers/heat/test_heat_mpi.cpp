// Tests of the PETSc plumbing (session, error macro, handles, linear solve)
// and of the steady heat-conduction solver on distributed meshes, at 1, 2
// and 4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscksp.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/heat/heat_conduction.hpp>
#include <camber/solvers/petsc/linear_solver.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::heat {
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
  ASSERT_TRUE(petsc::PetscSession::petsc_active());  // started by the environment
  const int before = petsc::PetscSession::live_sessions();
  {
    petsc::PetscSession inner("-heat_test_unused_option 1");
    EXPECT_FALSE(inner.started_petsc());
    EXPECT_EQ(petsc::PetscSession::live_sessions(), before + 1);
    PetscBool set = PETSC_FALSE;
    ASSERT_EQ(PetscOptionsHasName(nullptr, nullptr, "-heat_test_unused_option", &set), 0);
    EXPECT_TRUE(set);  // the options string reached PETSc's database
    ASSERT_EQ(PetscOptionsClearValue(nullptr, "-heat_test_unused_option"), 0);
  }
  EXPECT_EQ(petsc::PetscSession::live_sessions(), before);
  EXPECT_TRUE(petsc::PetscSession::petsc_active());
}

TEST(CheckPetsc, ForcedErrorBecomesCamberErrorWithPetscMessage) {
  petsc::KspHandle ksp;
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
  petsc::VecHandle a;
  CAMBER_CHECK_PETSC(VecCreateSeq(PETSC_COMM_SELF, 3, a.out()));
  Vec raw = a.get();
  petsc::VecHandle b(std::move(a));
  EXPECT_FALSE(a);
  EXPECT_EQ(b.get(), raw);
  b.reset();
  EXPECT_FALSE(b);
}

// Cell centroids of dm.local() on the host, {n_local_cells, 2}.
Kokkos::View<double**, Kokkos::HostSpace> centroids(const mesh::DistributedMesh& dm) {
  const mesh::Geometry g = mesh::compute_geometry(dm.local());
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_centroid);
}

// Quadrilaterals on the tensor grid xs x ys (node coordinates, increasing),
// with marker "walls" on the bottom and top sides and, if `mark_ends`,
// marker "ends" on the left and right ones (else those faces are unmarked).
mesh::Mesh tensor_grid(const std::vector<double>& xs, const std::vector<double>& ys,
                       bool mark_ends = true) {
  mesh::MeshData d;
  const auto nx = static_cast<index_t>(xs.size()) - 1;
  const auto ny = static_cast<index_t>(ys.size()) - 1;
  for (double y : ys)
    for (double x : xs) d.add_node(x, y);
  auto node = [nx](index_t i, index_t j) { return j * (nx + 1) + i; };
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nx; ++i)
      d.add_cell(mesh::CellType::quad,
                 {node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)});
  auto& walls = d.add_marker("walls");
  for (index_t i = 0; i < nx; ++i) {
    walls.add_element({node(i, 0), node(i + 1, 0)});
    walls.add_element({node(i + 1, ny), node(i, ny)});
  }
  if (mark_ends) {
    auto& ends = d.add_marker("ends");
    for (index_t j = 0; j < ny; ++j) {
      ends.add_element({node(0, j + 1), node(0, j)});
      ends.add_element({node(nx, j), node(nx, j + 1)});
    }
  }
  return mesh::Mesh::from_cells(std::move(d), mesh::Orientation::require);
}

HeatProblem linear_problem() {
  HeatProblem p;
  p.length_x_m = 2.0;
  p.length_y_m = 0.5;
  p.conductivity = 3.5;
  p.manufactured = "linear";
  return p;
}

// The largest |T_c - (1 + 2 x/Lx - 3 y/Ly)| over the local cells, owned and
// ghost, and over all ranks: the computed T against the formula directly,
// not against the solver's own "exact" field.
double linear_field_error(const mesh::DistributedMesh& dm, const HeatProblem& p,
                          const HeatResult& r) {
  const auto xc = centroids(dm);
  const auto t = r.temperature.host();
  EXPECT_EQ(r.temperature.dim(0), dm.n_local_cells());
  double worst = 0.0;
  for (index_t c = 0; c < dm.n_local_cells(); ++c) {
    const double expected = 1.0 + 2.0 * xc(c, 0) / p.length_x_m - 3.0 * xc(c, 1) / p.length_y_m;
    worst = std::max(worst, std::abs(t(c) - expected));
  }
  return par::allreduce_max(worst, MPI_COMM_WORLD);
}

// T = a + b x + c y is reproduced at the centroids of the rectangle's quads
// (odd, unequal counts on a non-square domain: non-square cells, uneven
// partitions): on an orthogonal mesh the two-point flux is exact for linear
// T, also at the half-cell boundary distance, so only the linear solver's
// error remains. Tolerance: CG stops at a preconditioned residual
// ||B r|| <= 1e-12 ||B b||; with BoomerAMG B ~ A^-1 and kappa(B A) = O(1)
// (a few), so ||error||_2 <~ kappa(B A) 1e-12 ||T||_2. Here |T| <= 3 on 91
// cells, ||T||_2 <= 3 sqrt(91) ~ 29, so every cell is within ~1e-10
// (measured: ~1e-12). Ghost rows hold their owners' values, so they match
// the formula too.
TEST(SolveHeat, ReproducesLinearSolutionOnQuads) {
  const HeatProblem p = linear_problem();
  const mesh::DistributedMesh dm(mesh::rectangle(13, 7, 2.0, 0.5), MPI_COMM_WORLD);
  const HeatResult r = solve_heat(dm, p);
  EXPECT_LE(linear_field_error(dm, p, r), 1e-10);
  EXPECT_LE(r.max_error, 1e-10);
  EXPECT_LE(r.l2_error, 1e-10);
  EXPECT_GT(r.iterations, 0);
  // Centroids and face centres of exact rectangles: orthogonal up to
  // round-off (~1e-14 rad).
  EXPECT_LT(r.max_non_orthogonality_deg, 1e-6);
  EXPECT_EQ(r.exact.dim(0), dm.n_local_cells());
  // The owned cells of all ranks cover the mesh exactly once.
  EXPECT_EQ(static_cast<index_t>(par::allreduce_sum(static_cast<double>(dm.n_owned_cells()),
                                                    MPI_COMM_WORLD)),
            13 * 7);
}

// Any mesh, not only the generator's: a graded tensor grid built from
// MeshData (cell widths growing by 1.5 along x, shrinking along y), with its
// own marker names ("walls", "ends"), each of which gets T = g. Rectangles
// in any spacing are still orthogonal (the line between two neighbours'
// centroids, and from a centroid to a boundary face's centre, is normal to
// the face), so the linear T is again reproduced to the solver's tolerance
// (|T| <= 3 on 60 cells: within ~1e-10, as above).
TEST(SolveHeat, ReproducesLinearSolutionOnAGradedGridWithOtherMarkers) {
  const HeatProblem p = linear_problem();
  std::vector<double> xs{0.0}, ys{0.0};
  double width = 0.1;
  while (xs.size() < 11) xs.push_back(xs.back() + (width *= 1.5));
  double height = 0.2;
  while (ys.size() < 7) ys.push_back(ys.back() + (height *= 0.7));
  const mesh::DistributedMesh dm(tensor_grid(xs, ys), MPI_COMM_WORLD);
  const HeatResult r = solve_heat(dm, p);
  EXPECT_LE(linear_field_error(dm, p, r), 1e-10);
  EXPECT_LE(r.max_error, 1e-10);
  EXPECT_LT(r.max_non_orthogonality_deg, 1e-6);
}

// GAMG as an alternative preconditioner converges to the same solution.
TEST(SolveHeat, GamgPreconditionerAlsoConverges) {
  HeatProblem p = linear_problem();
  p.solver.preconditioner = "gamg";
  const mesh::DistributedMesh dm(mesh::rectangle(13, 7, 2.0, 0.5), MPI_COMM_WORLD);
  const HeatResult r = solve_heat(dm, p);
  EXPECT_LE(r.max_error, 1e-10);
}

// The smooth manufactured solution on 32 x 32 quads of the unit square.
// This test checks that the right problem is solved and that the reported
// norms are what they claim; the order of accuracy is checked in
// tests/regression/. A wrong f or g gives errors of O(1) (|T| reaches
// e + 1 ~ 3.7), while the discretization error is O(h^2) ~ 1e-3 at
// h = 1/32, so the bounds 2e-3 (L2) and 4e-3 (max) separate the two.
TEST(SolveHeat, SmoothSolutionIsCloseAndNormsAreConsistent) {
  HeatProblem p;
  const mesh::DistributedMesh dm(mesh::rectangle(32, 32, 1.0, 1.0), MPI_COMM_WORLD);
  const HeatResult r = solve_heat(dm, p);
  EXPECT_LT(r.l2_error, 2e-3);
  EXPECT_LT(r.max_error, 4e-3);
  EXPECT_GT(r.l2_error, 0.0);

  // exact holds the manufactured T at the local centroids; the norms are
  // volume-weighted sums over owned cells (area 1/32^2 each).
  const auto xc = centroids(dm);
  const auto t = r.temperature.host();
  const auto e = r.exact.host();
  ASSERT_EQ(r.exact.dim(0), dm.n_local_cells());
  const double pi = std::acos(-1.0);
  double sum = 0.0;
  double local_max = 0.0;
  for (index_t c = 0; c < dm.n_local_cells(); ++c) {
    const double x = xc(c, 0);
    const double y = xc(c, 1);
    EXPECT_NEAR(e(c), std::sin(pi * x) * std::exp(y) + x * y, 1e-14);
    if (c >= dm.n_owned_cells()) continue;
    sum += (t(c) - e(c)) * (t(c) - e(c)) / (32.0 * 32.0);
    local_max = std::max(local_max, std::abs(t(c) - e(c)));
  }
  // Sums in a different order: agreement to a few ulps of the result.
  EXPECT_NEAR(r.l2_error, std::sqrt(par::allreduce_sum(sum, MPI_COMM_WORLD)),
              1e-14 * r.l2_error);
  EXPECT_EQ(r.max_error, par::allreduce_max(local_max, MPI_COMM_WORLD));

  // Ghost rows hold exactly their owners' values.
  const std::vector<double> whole =
      par::gather_owned(r.temperature, dm.distribution()).to_vector();
  const auto& ids = dm.cell_global_ids();
  for (index_t c = dm.n_owned_cells(); c < dm.n_local_cells(); ++c)
    EXPECT_EQ(t(c), whole[static_cast<size_t>(ids[static_cast<size_t>(c)])]) << "ghost " << c;
}

// The non-orthogonality report: 0 on the quads (above), and atan(1/2) =
// 26.565 degrees on the right-isosceles triangles of mesh::rectangle (from
// the lower triangle's centroid (2/3, 1/3) h to the upper one's below,
// (1/3, -1/3) h, against the side's normal (0, -1); tests/regression/ has
// the consequences).
TEST(SolveHeat, ReportsTheNonOrthogonalityOfTriangles) {
  const mesh::DistributedMesh dm(
      mesh::rectangle(8, 8, 1.0, 1.0, mesh::CellShape::triangles), MPI_COMM_WORLD);
  const HeatResult r = solve_heat(dm, linear_problem());
  EXPECT_NEAR(r.max_non_orthogonality_deg, std::atan(0.5) * 180.0 / std::acos(-1.0), 1e-9);
  // Not reproduced: the error is h (G_x - G_y) / 24 in every cell with
  // G = (2/2, -3/0.5) (tests/regression/), 7/24/8 = 0.036.
  EXPECT_NEAR(r.max_error, (1.0 + 6.0) / 24.0 / 8.0, 1e-10);
}

TEST(SolveHeat, BadInputIsReportedAsBadInput) {
  const mesh::DistributedMesh dm(mesh::rectangle(4, 4, 1.0, 1.0), MPI_COMM_WORLD);
  auto with = [](auto change) {
    HeatProblem p;
    change(p);
    return p;
  };
  expect_error([&] { solve_heat(dm, with([](HeatProblem& p) { p.length_x_m = 0.0; })); },
               ErrorKind::bad_input, {"length_x_m"});
  expect_error([&] { solve_heat(dm, with([](HeatProblem& p) { p.length_y_m = -1.0; })); },
               ErrorKind::bad_input, {"length_y_m"});
  expect_error([&] { solve_heat(dm, with([](HeatProblem& p) { p.conductivity = 0.0; })); },
               ErrorKind::bad_input, {"conductivity"});
  expect_error(
      [&] { solve_heat(dm, with([](HeatProblem& p) { p.manufactured = "cosine"; })); },
      ErrorKind::bad_input, {"cosine", "sin_exp"});
  expect_error(
      [&] { solve_heat(dm, with([](HeatProblem& p) { p.solver.method = "no_such_method"; })); },
      ErrorKind::bad_input, {"method", "no_such_method"});
  expect_error(
      [&] {
        solve_heat(dm, with([](HeatProblem& p) { p.solver.preconditioner = "no_such_pc"; }));
      },
      ErrorKind::bad_input, {"preconditioner", "no_such_pc"});

  // Left and right sides without a marker: no boundary condition there.
  const std::vector<double> xs{0.0, 0.25, 0.5, 0.75, 1.0};
  const mesh::DistributedMesh unmarked(tensor_grid(xs, xs, /*mark_ends=*/false),
                                       MPI_COMM_WORLD);
  expect_error([&] { solve_heat(unmarked, HeatProblem{}); }, ErrorKind::bad_input,
               {"has no marker", "every boundary face needs one"});

  // A dart (arrowhead) cell per rank, so every rank owns one: (0,0) (4,0)
  // (0.5,0.5) (0,4), counter-clockwise with area 2 and a reflex corner at
  // (0.5,0.5). Its centroid (5/6, 5/6) lies outside it, beyond the edges
  // at the reflex corner: from the centroid to the centre (2.25, 0.25) of
  // edge (4,0)-(0.5,0.5), against that edge's outward normal (0.5, 3.5)/|.|,
  // d = (1.417 * 0.5 - 0.583 * 3.5) / 3.54 < 0.
  mesh::MeshData darts;
  auto& wall = darts.add_marker("wall");
  for (int k = 0; k < world_size(); ++k) {
    const double x0 = 10.0 * k;
    const index_t a = darts.add_node(x0, 0.0);
    const index_t b = darts.add_node(x0 + 4.0, 0.0);
    const index_t c = darts.add_node(x0 + 0.5, 0.5);
    const index_t e = darts.add_node(x0, 4.0);
    darts.add_cell(mesh::CellType::quad, {a, b, c, e});
    wall.add_element({a, b});
    wall.add_element({b, c});
    wall.add_element({c, e});
    wall.add_element({e, a});
  }
  const mesh::DistributedMesh distorted(mesh::Mesh::from_cells(std::move(darts)),
                                        MPI_COMM_WORLD);
  expect_error([&] { solve_heat(distorted, HeatProblem{}); }, ErrorKind::bad_input,
               {"outer side of the face", "too distorted"});
}

// An unconverged solve is a failure naming PETSc's reason; the options
// prefix "heat_" lets PETSc options override the struct.
TEST(SolveHeat, DivergenceIsAFailureAndHeatOptionsOverride) {
  const mesh::DistributedMesh dm(mesh::rectangle(32, 32, 1.0, 1.0), MPI_COMM_WORLD);
  HeatProblem p;
  p.solver.max_iterations = 1;
  expect_error([&] { solve_heat(dm, p); }, ErrorKind::failure,
               {"DIVERGED_ITS", "1 iterations"});

  HeatProblem q;
  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-heat_ksp_max_it", "2"), 0);
  std::string message;
  try {
    solve_heat(dm, q);
  } catch (const Error& e) {
    message = e.message();
  }
  ASSERT_EQ(PetscOptionsClearValue(nullptr, "-heat_ksp_max_it"), 0);
  EXPECT_NE(message.find("DIVERGED_ITS after 2 iterations"), std::string::npos) << message;
  EXPECT_NO_THROW(solve_heat(dm, q));
}

}  // namespace
}  // namespace camber::solvers::heat
