// Error macros: kind, exit code, location and message text.
#include <gtest/gtest.h>

#include <mpi.h>

#include <camber/core/error.hpp>

TEST(Error, RequireThrowsFailureWithLocation) {
  try {
    CAMBER_REQUIRE(1 + 1 == 3, "arithmetic is broken: " << 42);
    FAIL() << "no throw";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::failure);
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_EQ(e.message(), "arithmetic is broken: 42");
    EXPECT_NE(e.where().find("test_error.cpp:"), std::string::npos);
  }
}

TEST(Error, InputRequireIsBadInputExitTwo) {
  try {
    CAMBER_INPUT_REQUIRE(false, "deck.yaml:3:5: mach must be positive");
    FAIL() << "no throw";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_EQ(e.exit_code(), 2);
  }
}

TEST(Error, RequirePassesWhenTrue) { EXPECT_NO_THROW(CAMBER_REQUIRE(true, "never")); }

TEST(Error, MpiErrorCarriesLibraryMessage) {
  // A negative count is an MPI_ERR_COUNT; Runtime set MPI_ERRORS_RETURN.
  int x = 0;
  try {
    CAMBER_CHECK_MPI(MPI_Bcast(&x, -1, MPI_INT, 0, MPI_COMM_WORLD));
    FAIL() << "no throw";
  } catch (const camber::Error& e) {
    EXPECT_NE(e.message().find("MPI_Bcast"), std::string::npos);
    EXPECT_NE(e.message().find("count"), std::string::npos) << e.message();
  }
}
