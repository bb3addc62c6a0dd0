/// @file
/// The vectors, operators and preconditioners of Camber's own Krylov
/// solvers (solvers/linear): Kokkos views in the default execution space's
/// memory, so that a solve stays on the device that holds its matrix, and
/// reductions whose bits do not depend on the number of threads.
///
/// A Vector holds a rank's owned rows only (n_owned cells x unknowns per
/// cell); an operator that needs ghost values (BlockSparseMatrix) fetches
/// them itself. Every function here that reduces across ranks is
/// collective over the communicator it is given.
///
/// Deterministic sums: a dot product is the sum of fixed chunks of
/// `reduction_chunk` consecutive entries, each chunk summed in order by one
/// thread, the chunks' sums added in order on the host, then across ranks
/// by MPI_Allreduce. The same vectors give the same bits on 1 or 64 threads
/// or on a GPU (MPI's own order depends only on the rank count).
///
/// @code
///   namespace lin = camber::solvers::linear;
///   lin::Vector x("x", n), y("y", n);
///   double d = lin::dot(x, y, comm);
/// @endcode
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <camber/core/tensor.hpp>

namespace camber::solvers::linear {

using Vector = Kokkos::View<double*>;
using ConstVector = Kokkos::View<const double*>;
/// Column j of a Basis is one vector (LayoutLeft: each column contiguous).
using Basis = Kokkos::View<double**, Kokkos::LayoutLeft>;

/// Entries summed in order by one thread before the chunks are added.
inline constexpr index_t reduction_chunk = 1024;

/// A linear map y = A x on the owned rows of a distributed vector.
/// Collective when it exchanges ghost values.
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  /// Rows of x and y on this rank.
  virtual index_t local_size() const = 0;
  /// y = A x; x and y do not alias.
  virtual void apply(ConstVector x, Vector y) const = 0;
};

/// y = M^-1 x, an approximate inverse used by a Krylov solver.
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  virtual void apply(ConstVector x, Vector y) const = 0;
};

/// M = I: y = x.
class IdentityPreconditioner final : public Preconditioner {
 public:
  void apply(ConstVector x, Vector y) const override;
};

/// <x, y> summed over the ranks of comm, deterministically (see the top).
double dot(ConstVector x, ConstVector y, MPI_Comm comm);
/// ||x||_2 = sqrt(dot(x, x)).
double norm2(ConstVector x, MPI_Comm comm);
/// out[i] = <V(:, i), w> for i < n_columns, in one pass over w and one
/// reduction across ranks (the classical Gram-Schmidt step's products).
void dots(const Basis& V, int n_columns, ConstVector w, MPI_Comm comm, double* out);

/// y += a x.
void axpy(double a, ConstVector x, Vector y);
/// y = a x.
void scale_into(double a, ConstVector x, Vector y);
/// w -= V(:, 0..n-1) h, h on the host (n <= the basis' columns).
void subtract_combination(const Basis& V, int n, const double* h, Vector w);

}  // namespace camber::solvers::linear
