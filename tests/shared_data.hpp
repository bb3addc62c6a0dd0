// Files from the shared data folder beside the checkout (../shared/data),
// which tests read but the project never copies. Under CI (the CI variable
// set) a missing file fails the test; elsewhere the test is skipped.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace camber::test {

// Path of a mesh in ../shared/data/meshes (CAMBER_SHARED_MESH_DIR).
inline std::string shared_mesh(const std::string& name) {
  return std::string(CAMBER_SHARED_MESH_DIR) + "/" + name;
}

}  // namespace camber::test

// Ends the current test when `path` is missing: a failure under CI, a skip
// elsewhere.
#define CAMBER_NEED_SHARED_FILE(path)                                          \
  do {                                                                         \
    if (!std::ifstream(path).good()) {                                         \
      if (std::getenv("CI")) FAIL() << "shared data file not found: " << (path); \
      GTEST_SKIP() << "shared data file not found: " << (path);                \
    }                                                                          \
  } while (false)
