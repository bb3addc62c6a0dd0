// tests/common/bad_input.hpp: the message of a bad_input error, "" when
// nothing is raised, and a test failure for an error of another kind.
#include "tests/common/bad_input.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using camber::test::bad_input_message;

TEST(BadInputMessage, IsTheErrorsTextOrEmpty) {
  const std::string m = bad_input_message([] { camber::throw_bad_input("m.yaml:2:3: wrong"); });
  EXPECT_NE(m.find("m.yaml:2:3: wrong"), std::string::npos) << m;
  EXPECT_EQ(bad_input_message([] {}), "");
  EXPECT_THROW(bad_input_message([] { throw std::runtime_error("not camber's"); }), std::runtime_error);
}

TEST(BadInputMessage, AnErrorOfAnotherKindFailsTheTest) {
  EXPECT_NONFATAL_FAILURE(bad_input_message([] { throw camber::Error(camber::ErrorKind::failure, "a programming error"); }), "bad_input");
}

}  // namespace
