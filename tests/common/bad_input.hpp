// The message of the bad-input error a piece of code raises, for tests of
// input checks (a deck's keys, a file's lines): one way to catch it, so
// that every such test asserts the kind the same way.
//
//   const std::string m = bad_input_message([&] { validate(deck); });
//   EXPECT_NE(m.find("'mesh.cells' = 65: must be even"), std::string::npos) << m;
//   EXPECT_EQ(bad_input_message([&] { validate(good_deck); }), "");   // passes
//
// A camber::Error of another kind (failure: a programming error) fails the
// test that called it, as does any other exception (it propagates).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include <camber/core/error.hpp>

namespace camber::test {

/// What `check()` raises as a camber::Error of kind bad_input (its
/// what()); "" when it returns.
template <class Check>
std::string bad_input_message(Check&& check) {
  try {
    check();
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
    return e.what();
  }
  return "";
}

}  // namespace camber::test
