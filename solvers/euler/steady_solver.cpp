#include <camber/solvers/euler/steady_solver.hpp>

#include <petscksp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include <camber/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/runtime.hpp>
#include <camber/solvers/petsc_error.hpp>
#include <camber/solvers/petsc_handle.hpp>

namespace camber::solvers::euler {

namespace {

constexpr int nv = Discretization::n_vars;

// PETSc block numbering: rank r's owned cells are blocks offset_r .. offset_r
// + n_owned_r - 1 in local order; a ghost gets its owner's number through
// the halo exchange.
std::vector<PetscInt> block_numbers(const Discretization& disc, PetscInt& first) {
  mesh::DistributedMesh& dm = disc.mesh();
  long long mine = disc.n_owned(), offset = 0;
  CAMBER_CHECK_MPI(MPI_Exscan(&mine, &offset, 1, MPI_LONG_LONG, MPI_SUM, dm.comm()));
  if (dm.rank() == 0) offset = 0;
  first = static_cast<PetscInt>(offset);
  Tensor ids({disc.n_local(), 1});
  {
    auto h = ids.host();
    for (index_t c = 0; c < disc.n_owned(); ++c) h(c) = static_cast<double>(offset + c);
    Kokkos::deep_copy(ids.view(), h);
  }
  dm.halo().forward(ids);
  const std::vector<double> v = ids.to_vector();
  std::vector<PetscInt> blocks(v.size());
  for (size_t i = 0; i < v.size(); ++i) blocks[i] = static_cast<PetscInt>(v[i]);
  return blocks;
}

// Density and pressure of owned cell c are positive and finite.
bool admissible(const IdealGas& gas, const double* u) {
  Conserved<double, 2> s;
  for (int k = 0; k < nv; ++k) s[k] = u[k];
  const double p = pressure(gas, s);
  return std::isfinite(p) && std::isfinite(u[0]) && u[0] > 0.0 && p > 0.0;
}

struct Norms {
  double density = 0.0, all = 0.0;
  index_t worst_cell = -1;  // a NaN cell (owned, local id), or -1
};

Norms residual_norms(const Tensor& R, index_t n_owned, MPI_Comm comm) {
  const auto h = R.host();
  double s[2] = {0.0, 0.0};
  index_t bad = -1;
  for (index_t c = 0; c < n_owned; ++c)
    for (int k = 0; k < nv; ++k) {
      const double r = h(c * nv + k);
      if (!std::isfinite(r) && bad < 0) bad = c;
      s[1] += r * r;
      if (k == 0) s[0] += r * r;
    }
  double g[2];
  CAMBER_CHECK_MPI(MPI_Allreduce(s, g, 2, MPI_DOUBLE, MPI_SUM, comm));
  return {std::sqrt(g[0]), std::sqrt(g[1]), bad};
}

}  // namespace

SteadyResult solve_steady(const Discretization& disc, Tensor& U, const SteadyOptions& options,
                          const SteadyMonitor& monitor) {
  const auto start = std::chrono::steady_clock::now();
  mesh::DistributedMesh& dm = disc.mesh();
  const MPI_Comm comm = dm.comm();
  const index_t n_owned = disc.n_owned(), n_faces = disc.n_faces();
  PetscInt first = 0;
  const std::vector<PetscInt> block = block_numbers(disc, first);

  // Sparsity: a block row per owned cell, a block per face neighbour.
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  std::vector<PetscInt> d_nnz(static_cast<size_t>(n_owned), 1), o_nnz(static_cast<size_t>(n_owned), 0);
  for (index_t f = 0; f < n_faces; ++f) {
    const index_t l = left(f), r = right(f);
    if (r < 0) continue;
    for (const auto& [row, col] : {std::pair<index_t, index_t>{l, r}, {r, l}})
      if (row < n_owned) ++(col < n_owned ? d_nnz : o_nnz)[static_cast<size_t>(row)];
  }
  MatHandle A;
  CAMBER_CHECK_PETSC(MatCreate(comm, A.out()));
  CAMBER_CHECK_PETSC(MatSetSizes(A.get(), nv * n_owned, nv * n_owned, PETSC_DETERMINE,
                                 PETSC_DETERMINE));
  CAMBER_CHECK_PETSC(MatSetType(A.get(), MATBAIJ));
  CAMBER_CHECK_PETSC(MatSetBlockSize(A.get(), nv));
  CAMBER_CHECK_PETSC(
      MatXAIJSetPreallocation(A.get(), nv, d_nnz.data(), o_nnz.data(), nullptr, nullptr));
  CAMBER_CHECK_PETSC(MatSetOption(A.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));

  // The right-hand side and the update live in Tensors; PETSc's Vecs are
  // placed over their owned rows (the first n_owned * 4 values).
  Tensor dU({disc.n_local(), nv});
  VecHandle b, x;
  CAMBER_CHECK_PETSC(
      VecCreateMPIWithArray(comm, nv, nv * n_owned, PETSC_DETERMINE, nullptr, b.out()));
  CAMBER_CHECK_PETSC(
      VecCreateMPIWithArray(comm, nv, nv * n_owned, PETSC_DETERMINE, dU.data(), x.out()));

  KspHandle ksp;
  CAMBER_CHECK_PETSC(KSPCreate(comm, ksp.out()));
  CAMBER_CHECK_PETSC(KSPSetOptionsPrefix(ksp.get(), options.options_prefix.c_str()));
  CAMBER_CHECK_PETSC(KSPSetType(ksp.get(), KSPGMRES));
  CAMBER_CHECK_PETSC(KSPGMRESSetRestart(ksp.get(), 60));
  PC pc;
  CAMBER_CHECK_PETSC(KSPGetPC(ksp.get(), &pc));
  CAMBER_CHECK_PETSC(PCSetType(pc, PCBJACOBI));  // ILU(0) in each block (the default)
  CAMBER_CHECK_PETSC(KSPSetTolerances(ksp.get(), options.linear_rel_tolerance, 1e-50,
                                      PETSC_DEFAULT, options.linear_max_iterations));
  CAMBER_CHECK_PETSC(KSPSetFromOptions(ksp.get()));

  SteadyResult result;
  Tensor R = disc.residual(U);
  Norms norms = residual_norms(R, n_owned, comm);
  const double r0 = norms.density;
  double cfl = options.cfl_start;
  const IdealGas gas = disc.gas();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto report_step = [&](int it, double step, int lin) {
    IterationReport rep;
    rep.iteration = it;
    rep.residual_density = norms.density;
    rep.residual_all = norms.all;
    rep.cfl = cfl;
    rep.step = step;
    rep.linear_iterations = lin;
    rep.forces = disc.forces(U);
    rep.seconds = seconds();
    result.history.push_back(rep);
    if (monitor) monitor(rep);
  };
  auto fail_at_cell = [&](index_t bad, const std::string& why) {
    // Every rank learns the lowest failing rank's cell.
    const auto centroid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                              disc.geometry().cell_centroid);
    double mine[3] = {bad >= 0 ? static_cast<double>(dm.rank()) : 1e300,
                      bad >= 0 ? centroid(bad, 0) : 0.0, bad >= 0 ? centroid(bad, 1) : 0.0};
    struct {
      double value;
      int rank;
    } in{mine[0], dm.rank()}, out{};
    CAMBER_CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
    double where[2] = {mine[1], mine[2]};
    CAMBER_CHECK_MPI(MPI_Bcast(where, 2, MPI_DOUBLE, out.rank, comm));
    const std::string message =
        CAMBER_MSG(why << " in the cell at (" << where[0] << ", " << where[1] << ") on rank "
                       << out.rank << "; the last good state is kept");
    // Every rank throws the same error; collective_guard prints it once.
    collective_guard(comm, [&] { CAMBER_REQUIRE(false, message); });
  };
  const auto check_finite = [&] {
    const double any = par::allreduce_max(norms.worst_cell >= 0 ? 1.0 : 0.0, comm);
    if (any > 0.0) fail_at_cell(norms.worst_cell, "the residual is not finite");
  };
  check_finite();
  report_step(0, 0.0, 0);

  Tensor U_good = U.clone();
  double previous_all = norms.all;
  for (int it = 1; it <= options.max_iterations; ++it) {
    if (norms.density <= std::max(options.rel_tolerance * r0, options.abs_tolerance)) {
      result.converged = true;
      break;
    }
    // The CFL number grows by the factor the residual fell (switched
    // evolution relaxation), at most cfl_growth per step, and is cut when the
    // residual rose.
    if (it > 1) {
      const double ratio = previous_all / std::max(norms.all, 1e-300);
      if (ratio >= 1.0)
        cfl *= std::min(options.cfl_growth, std::max(1.2, ratio));
      else if (ratio < 0.5)
        cfl *= options.cfl_cut;
      cfl = std::min(options.cfl_max, std::max(cfl, options.cfl_start * 1e-2));
    }
    previous_all = norms.all;

    const Tensor J = disc.face_jacobians(U);
    const Tensor lambda = disc.spectral_radius(U);
    const auto jh = J.host();
    const auto lh = lambda.host();
    for (int attempt = 0;; ++attempt) {
      // A = diag(lambda / CFL) + dR/dU, block by block.
      CAMBER_CHECK_PETSC(MatZeroEntries(A.get()));
      for (index_t f = 0; f < n_faces; ++f) {
        const index_t l = left(f), r = right(f);
        PetscScalar jl[nv * nv], jr[nv * nv], njl[nv * nv], njr[nv * nv];
        for (int i = 0; i < nv; ++i)
          for (int k = 0; k < nv; ++k) {
            jl[i * nv + k] = jh(f * 32 + i * 8 + k);
            jr[i * nv + k] = jh(f * 32 + i * 8 + 4 + k);
            njl[i * nv + k] = -jl[i * nv + k];
            njr[i * nv + k] = -jr[i * nv + k];
          }
        const PetscInt bl = block[static_cast<size_t>(l)];
        if (l < n_owned) {
          CAMBER_CHECK_PETSC(MatSetValuesBlocked(A.get(), 1, &bl, 1, &bl, jl, ADD_VALUES));
          if (r >= 0) {
            const PetscInt br = block[static_cast<size_t>(r)];
            CAMBER_CHECK_PETSC(MatSetValuesBlocked(A.get(), 1, &bl, 1, &br, jr, ADD_VALUES));
          }
        }
        if (r >= 0 && r < n_owned) {
          const PetscInt br = block[static_cast<size_t>(r)];
          CAMBER_CHECK_PETSC(MatSetValuesBlocked(A.get(), 1, &br, 1, &bl, njl, ADD_VALUES));
          CAMBER_CHECK_PETSC(MatSetValuesBlocked(A.get(), 1, &br, 1, &br, njr, ADD_VALUES));
        }
      }
      for (index_t c = 0; c < n_owned; ++c) {
        PetscScalar d[nv * nv] = {};
        for (int i = 0; i < nv; ++i) d[i * nv + i] = lh(c) / cfl;
        const PetscInt bc = block[static_cast<size_t>(c)];
        CAMBER_CHECK_PETSC(MatSetValuesBlocked(A.get(), 1, &bc, 1, &bc, d, ADD_VALUES));
      }
      CAMBER_CHECK_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
      CAMBER_CHECK_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));

      // b = -R over R's storage; x = dU.
      R *= -1.0;
      CAMBER_CHECK_PETSC(VecPlaceArray(b.get(), R.data()));
      CAMBER_CHECK_PETSC(KSPSetOperators(ksp.get(), A.get(), A.get()));
      dU.fill(0.0);
      const PetscErrorCode solved = KSPSolve(ksp.get(), b.get(), x.get());
      CAMBER_CHECK_PETSC(VecResetArray(b.get()));
      R *= -1.0;
      CAMBER_CHECK_PETSC(solved);
      PetscInt lin = 0;
      CAMBER_CHECK_PETSC(KSPGetIterationNumber(ksp.get(), &lin));

      // Largest alpha in 1, 1/2, ..., 1/64 that keeps every owned cell
      // admissible, agreed over ranks.
      const auto uh = U_good.host();
      const auto dh = dU.host();
      double alpha = 1.0;
      for (;;) {
        int ok = 1;
        for (index_t c = 0; c < n_owned && ok; ++c) {
          double s[nv];
          for (int k = 0; k < nv; ++k) s[k] = uh(c * nv + k) + alpha * dh(c * nv + k);
          ok = admissible(gas, s);
        }
        int all = 0;
        CAMBER_CHECK_MPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
        if (all || alpha < 1.0 / 64.0) {
          if (!all) alpha = 0.0;
          break;
        }
        alpha *= 0.5;
      }
      if (alpha > 0.0) {
        U = U_good.clone();
        U.axpy(alpha, dU);
        R = disc.residual(U);
        norms = residual_norms(R, n_owned, comm);
        check_finite();
        U_good = U.clone();
        result.iterations = it;
        report_step(it, alpha, static_cast<int>(lin));
        break;
      }
      // Rejected: smaller pseudo-time step, same linearization point.
      cfl /= 10.0;
      if (cfl < 1e-3 * options.cfl_start || attempt > 8) {
        U = U_good.clone();
        const std::string message = CAMBER_MSG(
            "no admissible Newton step at iteration "
            << it << ": density or pressure would turn negative even at CFL " << cfl
            << "; the last good state is kept (try a smaller solver.cfl_start)");
        collective_guard(comm, [&] { CAMBER_REQUIRE(false, message); });
      }
    }
  }
  if (!result.converged)
    result.converged =
        norms.density <= std::max(options.rel_tolerance * r0, options.abs_tolerance);
  result.forces = disc.forces(U);
  return result;
}

}  // namespace camber::solvers::euler
