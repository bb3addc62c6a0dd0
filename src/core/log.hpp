/// @file
/// Logging for MPI programs.
///
/// By default only rank 0 prints, so a 64-rank job prints one line, not 64.
/// `--verbose` enables debug lines; per-rank mode prefixes every rank's lines
/// with "[rank r]" and lets all ranks print (for debugging decomposition).
///
/// @code
///   camber::logging::info(CAMBER_MSG("solve converged in " << its << " iterations"));
///   camber::logging::debug("assembling matrix");     // only with --verbose
///   camber::logging::warn("mesh has 3 cells with aspect ratio > 1000");
/// @endcode
///
/// Warnings and errors go to stderr; info and debug to stdout.
#pragma once

#include <string>

namespace camber::logging {

enum class Level { quiet = 0, info = 1, debug = 2 };

void set_rank(int rank);
void set_level(Level level);
Level level();
/// When true every rank prints, prefixed with its rank.
void set_per_rank(bool per_rank);
bool per_rank();

void info(const std::string& line);
void debug(const std::string& line);
void warn(const std::string& line);

/// True when this rank prints at the given level.
bool enabled(Level level);

}  // namespace camber::logging
