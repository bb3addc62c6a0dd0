#include <camber/nn/schedule.hpp>

#include <algorithm>
#include <cmath>

#include <camber/core/error.hpp>

namespace camber::nn {

namespace {
void check_lr(double lr, const char* who) {
  CAMBER_REQUIRE(std::isfinite(lr) && lr >= 0.0, who << ": learning rate " << lr
                                                     << " must be finite and >= 0");
}
}  // namespace

Schedule constant_lr(double lr) {
  check_lr(lr, "constant_lr");
  return [lr](long) { return lr; };
}

Schedule step_lr(double lr, long step_size, double gamma) {
  check_lr(lr, "step_lr");
  CAMBER_REQUIRE(step_size > 0 && gamma > 0.0, "step_lr: step_size and gamma must be positive");
  return [=](long s) { return lr * std::pow(gamma, static_cast<double>(std::max(s, 0L) / step_size)); };
}

Schedule cosine_lr(double lr, long total_steps, double min_lr) {
  check_lr(lr, "cosine_lr");
  check_lr(min_lr, "cosine_lr");
  CAMBER_REQUIRE(total_steps > 0, "cosine_lr: total_steps must be positive");
  return [=](long s) {
    const double f = static_cast<double>(std::clamp(s, 0L, total_steps)) /
                     static_cast<double>(total_steps);
    return min_lr + (lr - min_lr) * 0.5 * (1.0 + std::cos(M_PI * f));
  };
}

Schedule warmup(Schedule schedule, long warmup_steps) {
  CAMBER_REQUIRE(schedule != nullptr && warmup_steps >= 0, "warmup: needs a schedule and steps >= 0");
  return [schedule = std::move(schedule), warmup_steps](long s) {
    const double base = schedule(s);
    if (s >= warmup_steps) return base;
    return base * static_cast<double>(s + 1) / static_cast<double>(warmup_steps);
  };
}

}  // namespace camber::nn
