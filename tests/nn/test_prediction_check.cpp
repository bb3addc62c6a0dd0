// nn/io/prediction_check.hpp against hand-built values: inputs at the ends
// of the training range pass, the next double beyond either end is refused
// naming the row, the input, its value (as the shortest text that reads
// back as it) and the range; a margin widens the range by its fraction of
// the width; extrapolation: allow and a card without a range let any finite
// input pass; a value that is not finite is refused under every policy,
// and an output that is not finite names its row and output.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <camber/nn/io/prediction_check.hpp>

#include "small_model.hpp"

namespace {

namespace nn = camber::nn;
using nn::io::Extrapolation;

const double inf = std::numeric_limits<double>::infinity();
const double nan = std::numeric_limits<double>::quiet_NaN();

// small_surrogate: inputs mach, alpha_deg; output CL. The range mach
// [0.3, 0.7], alpha_deg [-2, 4].
nn::io::Model model(Extrapolation policy, double margin, bool range = true) {
  nn::io::Model m{camber::test::small_surrogate(7), {}, 1, 0, std::string(64, 'f')};
  if (range) {
    m.card.input_min = {0.3, -2.0};
    m.card.input_max = {0.7, 4.0};
  }
  m.card.extrapolation = policy;
  m.card.extrapolation_margin = margin;
  return m;
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

TEST(PredictionCheck, TheRangeIsClosedAndTheNextDoubleBeyondIsRefused) {
  const nn::io::PredictionCheck check(model(Extrapolation::refuse, 0.0));
  EXPECT_TRUE(check.bounded());
  const std::vector<double> ends = {0.3, -2.0, 0.7, 4.0, 0.5, 1.0};
  EXPECT_FALSE(check.inputs(ends.data(), 3));

  // Row 2 of 3, mach one ulp above 0.7.
  std::vector<double> rows = ends;
  rows[4] = std::nextafter(0.7, 1.0);
  auto fault = check.inputs(rows.data(), 3);
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->row, 2u);
  EXPECT_EQ(fault->column, 0u);
  EXPECT_EQ(fault->value, rows[4]);
  EXPECT_EQ(fault->message,
            "row 2: input 'mach' = 0.7000000000000001 is outside the training range [0.3, 0.7] of the "
            "model (extrapolation: refuse)");
  // alpha_deg one ulp below -2, numbered from row 10 (a later block).
  rows = ends;
  rows[1] = std::nextafter(-2.0, -3.0);
  fault = check.inputs(rows.data(), 3, 10);
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->row, 10u);
  EXPECT_EQ(fault->column, 1u);
  EXPECT_TRUE(has(fault->message, "row 10: input 'alpha_deg' = -2.0000000000000004 is outside the training "
                                  "range [-2, 4]")) << fault->message;
  // The extreme finite values of the issue: the first column is named.
  const std::vector<double> extreme = {1.7e308, -1.7e308};
  fault = check.inputs(extreme.data(), 1);
  ASSERT_TRUE(fault);
  EXPECT_TRUE(has(fault->message, "input 'mach' = 1.7e+308 is outside the training range [0.3, 0.7]"))
      << fault->message;
}

TEST(PredictionCheck, AMarginWidensTheRangeByItsFractionOfTheWidth) {
  // Width 0.4 and 6: a margin of 0.5 accepts mach in [0.1, 0.9], alpha_deg
  // in [-5, 7].
  const nn::io::PredictionCheck check(model(Extrapolation::refuse, 0.5));
  const std::vector<double> inside = {0.11, -4.9, 0.89, 6.9};
  EXPECT_FALSE(check.inputs(inside.data(), 2));
  const std::vector<double> outside = {0.5, 7.1};
  const auto fault = check.inputs(outside.data(), 1);
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->column, 1u);
  EXPECT_TRUE(has(fault->message, "input 'alpha_deg' = 7.1 is outside the training range [-2, 4] of the "
                                  "model, widened by its extrapolation margin 0.5 of the width to [-5, 7]"))
      << fault->message;
}

TEST(PredictionCheck, AllowAndNoRangeAcceptAnyFiniteInputButNeverANonFiniteOne) {
  for (const nn::io::Model& m : {model(Extrapolation::allow, 0.0), model(Extrapolation::refuse, 0.0, false)}) {
    const nn::io::PredictionCheck check(m);
    EXPECT_FALSE(check.bounded());
    const std::vector<double> extreme = {1.7e308, -1.7e308, -5.0, 1e6};
    EXPECT_FALSE(check.inputs(extreme.data(), 2));
    for (const double bad : {nan, inf, -inf}) {
      const std::vector<double> rows = {0.5, 1.0, 0.5, bad};
      const auto fault = check.inputs(rows.data(), 2);
      ASSERT_TRUE(fault) << bad;
      EXPECT_EQ(fault->row, 1u);
      EXPECT_EQ(fault->column, 1u);
      EXPECT_TRUE(has(fault->message, "row 1: input 'alpha_deg' = ")) << fault->message;
      EXPECT_TRUE(has(fault->message, " is not a finite number")) << fault->message;
    }
  }
  // Under refuse, a non-finite input is named as such, not as out of range.
  const nn::io::PredictionCheck refuse(model(Extrapolation::refuse, 0.0));
  const std::vector<double> rows = {nan, 1.0};
  EXPECT_EQ(refuse.inputs(rows.data(), 1)->message, "row 0: input 'mach' = nan is not a finite number");
}

TEST(PredictionCheck, AnOutputThatIsNotFiniteIsNamedWithItsRow) {
  for (const nn::io::Model& m : {model(Extrapolation::refuse, 0.0), model(Extrapolation::allow, 0.0)}) {
    const nn::io::PredictionCheck check(m);
    const std::vector<double> finite = {0.25, -1e300, 1e300};
    EXPECT_FALSE(check.outputs(finite.data(), 3));
    for (const double bad : {nan, inf, -inf}) {
      const std::vector<double> y = {0.25, -0.1, bad};
      const auto fault = check.outputs(y.data(), 3, 4);
      ASSERT_TRUE(fault) << bad;
      EXPECT_EQ(fault->row, 6u);
      EXPECT_EQ(fault->column, 0u);
      EXPECT_TRUE(has(fault->message, "row 6: output 'CL' is ")) << fault->message;
      EXPECT_TRUE(has(fault->message, ", not a finite number")) << fault->message;
    }
  }
}

}  // namespace
