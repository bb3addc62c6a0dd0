/// @file
/// camber::deck::Deck — a YAML input deck, validated against a Schema, with
/// typed access and defaults applied.
///
/// load_deck() reads a YAML file and checks it against a Schema (schema.hpp)
/// before any work starts. Every problem in the deck is reported at once, in
/// file order, as one camber::Error of kind bad_input (exit code 2); each line
/// names the file, line and column, the full dotted key, and what is allowed:
///
/// @code
///   plate.yaml:7:3: unknown key 'mesh.cels_x'; did you mean 'cells_x'? Valid keys in 'mesh': cells_x, cells_y, length_x_m
///   plate.yaml:9:9: 'flow.mach' must be a real number in [0.0, 5.0]; got 'fast'
/// @endcode
///
/// Usage:
///
/// @code
///   camber::deck::Schema schema;
///   schema.section("mesh").integer("cells_x", 64, {2, 1 << 20}, "Cells along x.");
///   const camber::deck::Deck deck = camber::deck::load_deck("plate.yaml", schema);
///   const std::int64_t nx = deck.integer("mesh.cells_x");       // 64 if not given
///   if (nx % n_ranks != 0) deck.reject("mesh.cells_x", "must be a multiple of the rank count");
/// @endcode
///
/// Accepted YAML. A deck is one YAML document whose top level is a mapping.
/// Sections are mappings (an empty `mesh:` is an empty section). Keys must be
/// plain names and appear once per mapping (yaml-cpp accepts duplicates; the
/// deck does not). Scalars are read strictly:
///   * boolean: `true` or `false` only (not yes/no/on/off, not quoted);
///   * integer: decimal digits with an optional sign; `3.5`, `1e3` and `0x10`
///     are rejected, as are values beyond 64 bits;
///   * real: decimal notation (`1`, `-0.5`, `2.5e-3`); `.inf`, `.nan` and
///     values that overflow a double are rejected;
///   * a quoted scalar is a string: `mach: "0.8"` is an error for a real;
///   * string and choice keys take any scalar as text (`case: 2024` is "2024");
///   * a key with no value (`mach:` or `mach: ~`) is an error, not a default.
///
/// Anchors and aliases work as in YAML; merge keys (`<<`) are not supported.
///
/// Deck is a plain value (copyable, no reference to the Schema). Asking for a
/// key that was not declared, or with the accessor of another type, is a
/// programming error (camber::Error of kind failure). Reading a deck involves
/// no communication: under MPI every rank may load it, and every rank then
/// raises the same error, as run_guarded() expects of collective errors.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <camber/deck/schema.hpp>

namespace camber::deck {

namespace detail {
class Validator;
}

class Deck {
 public:
  Deck() = default;  ///< an empty deck with no keys

  bool boolean(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;
  /// string and choice keys.
  const std::string& string(const std::string& key) const;
  const std::vector<double>& reals(const std::string& key) const;
  const std::vector<std::int64_t>& integers(const std::string& key) const;

  /// True when the key (or section) was written in the deck, false when its
  /// default applies.
  bool has(const std::string& key) const;
  /// "plate.yaml:7:3" where the key's value (or the section) was written, or
  /// "plate.yaml (default)" when the default applies.
  std::string where(const std::string& key) const;
  /// The value as it would be written in a deck: "64", "0.5", "[12, 2]".
  std::string text(const std::string& key) const;
  /// Throws a bad-input camber::Error naming where the key was set:
  /// @code
  ///   "plate.yaml:7:3: 'mesh.cells_x' = 6: <why>".
  /// @endcode
  [[noreturn]] void reject(const std::string& key, const std::string& why) const;
  /// reject() of the key `section`.member, as the function a library
  /// check is given (told the member of a settings struct whose keys are
  /// the section's, and what is wrong). The deck must outlive it.
  std::function<void(const std::string& member, const std::string& why)> rejecter(
      const std::string& section) const;

  /// Every declared key (not sections), dotted, in declaration order.
  std::vector<std::string> keys() const;
  /// The file name (or display name) the deck was read from.
  const std::string& source() const { return source_; }

 private:
  friend class detail::Validator;

  struct Entry {
    KeySpec spec;          ///< unused for sections
    bool is_section = false;
    Value value;
    bool given = false;
    int line = 0;          ///< 1-based; 0 when defaulted or unknown
    int column = 0;
  };

  const Entry& find(const std::string& key, const char* accessor) const;
  const Entry& typed(const std::string& key, Type type, const char* accessor) const;

  std::string source_;
  std::vector<Entry> entries_;  ///< declaration order, sections included
  std::unordered_map<std::string, std::size_t> index_;  ///< dotted path -> entries_
};

/// A path a deck names: absolute as given, else relative to the folder of
/// the deck's file (Deck::source()), lexically normalised: "wing.su2" in
/// "cases/m6.yaml" is "cases/wing.su2".
std::string deck_relative_path(const Deck& d, const std::string& path);

/// The text of the deck's file (Deck::source()) as it is now, for what a
/// run writes down about itself (a model card, a data set's provenance);
/// "" when the file cannot be read (a deck parsed from text).
std::string deck_text(const Deck& d);

/// Reads and validates the deck file at `path`. Throws camber::Error of kind
/// bad_input for an unreadable, empty or malformed file, and for every
/// mismatch with the schema.
Deck load_deck(const std::string& path, const Schema& schema);

/// Validates YAML text; `display_name` stands for the file name in messages.
Deck parse_deck(const std::string& yaml_text, const std::string& display_name,
                const Schema& schema);

/// The text of the deck file at `path`; a missing, unreadable or directory
/// path is a bad_input error naming it (what load_deck reports).
std::string read_deck_file(const std::string& path);

/// A top-level scalar of a deck read before validation (top_level_scalar).
struct ScalarAt {
  bool parsed = false;  ///< the text is YAML whose top level is a mapping
  bool found = false;   ///< the key is there with a scalar value
  std::string value;    ///< the scalar's text, when found
  int line = 0;         ///< 1-based line of the value, when found
  int column = 0;       ///< 1-based column of the value, when found
};

/// The value of the top-level scalar `key` in YAML text, before any
/// validation: what chooses the schema of a deck (for example
/// `problem: euler`). Text that does not parse gives parsed = false
/// (parse_deck then reports it with its line).
ScalarAt top_level_scalar(const std::string& yaml_text, const std::string& key);

}  // namespace camber::deck
