// Text helpers shared by the deck module: number formatting that round-trips
// and does not depend on the C/C++ locale, and "did you mean" suggestions.
// Internal to camber::deck; not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace camber::deck::detail {

// Optimal-string-alignment distance (Levenshtein plus adjacent
// transpositions, each counted as one edit): "mahc" -> "mach" is 1.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word` (compared case-insensitively), if it is
// close enough to be a plausible typo: at most max(1, longer length / 3)
// edits. Ties go to the earliest candidate.
std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates);

// Shortest text that reads back as the same double ("0.1", "1e-10"), with
// ".0" added to integral values so they read as reals ("1.0").
std::string format_real(double x);
std::string format_integer(std::int64_t x);

// "a, b, c"
std::string join(const std::vector<std::string>& words, const std::string& separator = ", ");

// Strict parsers for deck scalars, independent of the locale. Integers:
// optional sign and decimal digits only. Reals: decimal notation with
// optional fraction and exponent ("1", "-0.5", "2.5e-3", ".5"). Return
// nullopt for anything else, and for values that overflow.
std::optional<std::int64_t> parse_integer(const std::string& text);
std::optional<double> parse_real(const std::string& text);
// True when `text` has the shape of a decimal real (even if it overflows).
bool looks_like_real(const std::string& text);

}  // namespace camber::deck::detail
