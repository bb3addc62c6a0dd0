/// @file
/// Learning-rate schedules: functions of the step number s = 0, 1, ... (the
/// step about to be taken) returning the learning rate.
///
///   constant_lr(a)                  a
///   step_lr(a, n, gamma)            a gamma^floor(s / n)
///   cosine_lr(a, total, a_min)      a_min + (a - a_min) (1 + cos(pi min(s, total) / total)) / 2
///   warmup(schedule, w)             schedule(s) (s + 1) / w for s < w, then schedule(s)
///
/// @code
///   auto lr = nn::warmup(nn::cosine_lr(1e-3, 5000, 1e-5), 100);
///   for (int s = 0; s < 5000; ++s) { opt.set_lr(lr(s)); ... opt.step(g); }
/// @endcode
#pragma once

#include <functional>

namespace camber::nn {

using Schedule = std::function<double(long step)>;

Schedule constant_lr(double lr);
Schedule step_lr(double lr, long step_size, double gamma);
Schedule cosine_lr(double lr, long total_steps, double min_lr = 0.0);
Schedule warmup(Schedule schedule, long warmup_steps);

}  // namespace camber::nn
