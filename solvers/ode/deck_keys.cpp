#include "deck_keys.hpp"

namespace camber::solvers::ode {

using deck::IntRange;
using deck::Keys;
using deck::Length;
using deck::Range;

const Keys<CvodesOptions>& cvodes_keys() {
  static const Keys<CvodesOptions> keys =
      Keys<CvodesOptions>()
          .choice("method", &CvodesOptions::method, ode_method_names,
                  "bdf for stiff problems, adams for non-stiff ones.")
          .real("rtol", &CvodesOptions::rtol, Range::positive().and_less_than(1.0), "Relative tolerance.")
          .reals("atol", &CvodesOptions::atol, Length::at_least(1), Range::non_negative(),
                 "Absolute tolerance: one value, or one per component.")
          .integer("max_steps", &CvodesOptions::max_steps, IntRange(1, 100000000),
                   "Most steps between two output times.");
  return keys;
}

const Keys<AdjointOptions>& adjoint_keys() {
  static const Keys<AdjointOptions> keys = Keys<AdjointOptions>().integer(
      "checkpoint_steps", &AdjointOptions::checkpoint_steps, IntRange(1, 100000000),
      "Forward steps between two adjoint checkpoints: fewer stores more, more recomputes more.");
  return keys;
}

}  // namespace camber::solvers::ode
