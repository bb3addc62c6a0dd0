/// @file
/// PetscHandle — unique ownership of a PETSc object (Mat, Vec, KSP, ...).
///
/// PETSc objects are reference-counted C handles released with their own
/// *Destroy function. PetscHandle owns one reference and releases it when it
/// goes out of scope, like std::unique_ptr with a PETSc deleter:
///
/// @code
///   camber::solvers::petsc::MatHandle A;
///   CAMBER_CHECK_PETSC(MatCreate(comm, A.out()));   // A now owns the Mat
///   CAMBER_CHECK_PETSC(MatSetSizes(A.get(), n, n, N, N));
///   camber::solvers::petsc::VecHandle x, b;
///   CAMBER_CHECK_PETSC(MatCreateVecs(A.get(), x.out(), b.out()));
///   // MatDestroy/VecDestroy run at the end of the scope
/// @endcode
///
/// Lifetime: destroying a parallel object is collective over its
/// communicator, so every rank must let its handles go out of scope together
/// (an exception thrown on all ranks is fine; on some ranks only, the job is
/// ended with MPI_Abort by camber::run_guarded anyway). Handles must die
/// before the PetscSession that started PETSc; one still alive after
/// PetscFinalize is leaked rather than destroyed (no crash at exit).
#pragma once

#include <petscksp.h>
#include <petscmat.h>
#include <petscvec.h>

#include <utility>

namespace camber::solvers::petsc {

template <typename Object, PetscErrorCode (*Destroy)(Object*)>
class PetscHandle {
 public:
  PetscHandle() = default;
  /// Takes ownership of an existing reference.
  explicit PetscHandle(Object object) noexcept : object_(object) {}
  ~PetscHandle() { reset(); }

  PetscHandle(const PetscHandle&) = delete;
  PetscHandle& operator=(const PetscHandle&) = delete;
  PetscHandle(PetscHandle&& other) noexcept : object_(other.release()) {}
  PetscHandle& operator=(PetscHandle&& other) noexcept {
    if (this != &other) {
      reset();
      object_ = other.release();
    }
    return *this;
  }

  Object get() const noexcept { return object_; }
  explicit operator bool() const noexcept { return object_ != nullptr; }

  /// Releases the current object and returns the address for a PETSc
  /// creation function to fill: MatCreate(comm, A.out()).
  Object* out() noexcept {
    reset();
    return &object_;
  }

  /// Gives up ownership without destroying.
  Object release() noexcept { return std::exchange(object_, nullptr); }

  /// Destroys the object now. Errors from *Destroy cannot be reported from
  /// a destructor and are ignored (PETSc frees the memory regardless).
  void reset() noexcept {
    if (object_ == nullptr) return;
    PetscBool finalized = PETSC_FALSE;
    PetscFinalized(&finalized);
    if (!finalized) (void)Destroy(&object_);
    object_ = nullptr;
  }

 private:
  Object object_ = nullptr;
};

using MatHandle = PetscHandle<Mat, MatDestroy>;
using VecHandle = PetscHandle<Vec, VecDestroy>;
using KspHandle = PetscHandle<KSP, KSPDestroy>;

}  // namespace camber::solvers::petsc
