// A GoogleTest environment that holds one PetscSession for a test program.
//
// tests/test_main.cpp owns camber::Runtime (MPI, Kokkos). GoogleTest calls
// SetUp at the start of RUN_ALL_TESTS and TearDown at its end, so PETSc
// starts after MPI and is finalized before Runtime finalizes MPI. (The
// environment object itself is deleted only at exit; it holds nothing by
// then.) The registration is an inline variable: one environment per
// program however many of its files include this header.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include <camber/solvers/petsc/petsc_session.hpp>

namespace camber::solvers::testing {

class PetscEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { session_ = std::make_unique<petsc::PetscSession>(); }
  void TearDown() override { session_.reset(); }

 private:
  std::unique_ptr<petsc::PetscSession> session_;
};

// GoogleTest takes ownership of the environment.
inline ::testing::Environment* const petsc_environment =
    ::testing::AddGlobalTestEnvironment(new PetscEnvironment);

}  // namespace camber::solvers::testing
