/// @file
/// camber::nn::registry entry text — a registry entry as people read it:
/// its card and lineage (what `camber models show` prints), the
/// differences between two versions (`camber models diff`: fields,
/// validation error per output in per cent, and the training and sample
/// decks line by line), and the table of `camber models list`.
///
/// @code
///   registry::Registry r(registry::Registry::default_root());
///   std::cout << registry::describe(r.resolve(registry::parse_reference("naca@prod")));
///   std::cout << registry::diff(r.resolve(registry::parse_reference("naca@1")),
///                               r.resolve(registry::parse_reference("naca@2")));
/// @endcode
#pragma once

#include <string>
#include <vector>

#include <camber/nn/registry/registry.hpp>

namespace camber::nn::registry {

/// "CL 0.001, CD 0.0002" (4 digits), or "-" without a validation error.
std::string rmse_text(const Entry& e);
/// The entry's card: file, hashes, signature, provenance, validation
/// error, and the training and sample decks.
std::string describe(const Entry& e);
/// a -> b: each field (same, or old -> new), the validation error per
/// output with its change in per cent, and the decks' lines only in a
/// ("- ") or only in b ("+ "), by longest common subsequence.
std::string diff(const Entry& a, const Entry& b);
/// One line per entry under a header: reference, stage, registration
/// time, the hash's first 12 digits, signer, validation error. The
/// columns are as wide as their longest value (a 64-character name too).
std::string list_table(const std::vector<Entry>& entries);

}  // namespace camber::nn::registry
