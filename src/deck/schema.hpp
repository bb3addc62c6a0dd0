/// @file
/// camber::deck::Schema — the declared shape of an input deck.
///
/// A deck is a YAML mapping of keys and sections (sections nest). Before any
/// work starts, the deck is validated against a Schema in which every key has
/// a type, a default (or is required), an allowed range and a doc string. The
/// same Schema generates docs/deck-reference.md (see reference.hpp), so the
/// documentation cannot drift from what the code accepts.
///
/// @code
///   Schema s;
///   s.string("case", "unnamed", "Case name, used in output file names.");
///   s.section("mesh", "The computational mesh.")
///     .integer("cells_x", 64, {2, 1 << 20}, "Cells along x.")
///     .real("length_x_m", 1.0, Range::positive(), "Domain length along x, in metres.")
///     .choice("element", "quad", {"quad", "tri"}, "Cell shape.");
///   s.section("flow").real("mach", required, Range(0.0, 5.0), "Free-stream Mach number.");
/// @endcode
///
/// Several modules may contribute to one Schema: section("heat") called twice
/// returns the same section, so e.g. the solvers declare `heat` and the apps
/// declare `output`, each in a function taking `Schema&`. Declaring the same
/// key twice, a default outside its range, or a malformed name is a
/// programming error (camber::Error of kind failure), raised at declaration.
///
/// Types: boolean, integer (64-bit, inclusive IntRange), real (finite, Range
/// with inclusive or exclusive bounds), string, choice (a string from a fixed
/// list), and lists of reals or integers with a Length constraint. Units are
/// part of key names (`length_x_m`); there is no unit handling.
///
/// Lifetime: a Schema owns its sections; references returned by section()
/// stay valid as long as the Schema lives (moving a Schema keeps them valid,
/// except a reference to the Schema itself). Most users want load_deck() in
/// deck.hpp, which validates a file against a Schema and returns a Deck.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace camber::deck {

/// Tag for keys that have no default and must appear in the deck:
/// @code
///   s.section("flow").real("mach", required, Range::positive(), "...");
/// @endcode
/// Like std::nullopt_t, Required cannot be made from `{}`, so an empty list
/// default (`.reals("w", {}, ...)`) is not ambiguous.
struct Required {
  struct Tag {};
  explicit constexpr Required(Tag) {}
};
inline constexpr Required required{Required::Tag{}};

/// Allowed values of a real key: an interval with inclusive or exclusive ends.
/// NaN and infinity are never allowed. The default Range allows every finite
/// real; Range(a, b) is the closed interval [a, b]. Exclusive ends:
/// @code
///   Range::positive()                         // > 0
///   Range::greater_than(0.0).and_at_most(1.0)  // (0, 1]
/// @endcode
class Range {
 public:
  Range() = default;
  Range(double min, double max);  ///< [min, max]

  static Range all() { return Range(); }
  static Range positive() { return greater_than(0.0); }
  static Range non_negative() { return at_least(0.0); }
  static Range at_least(double min);      ///< >= min
  static Range greater_than(double min);  ///< >  min
  static Range at_most(double max);       ///< <= max
  static Range less_than(double max);     ///< <  max

  /// Replace one end of the interval.
  Range and_at_least(double min) const;
  Range and_greater_than(double min) const;
  Range and_at_most(double max) const;
  Range and_less_than(double max) const;

  bool contains(double x) const;
  bool bounded() const { return has_min() || has_max(); }
  /// "> 0", "<= 1", "in (0, 1]", or "" when unbounded.
  std::string describe() const;

 private:
  bool has_min() const { return min_ != -std::numeric_limits<double>::infinity(); }
  bool has_max() const { return max_ != std::numeric_limits<double>::infinity(); }
  void check() const;

  double min_ = -std::numeric_limits<double>::infinity();
  double max_ = std::numeric_limits<double>::infinity();
  bool min_inclusive_ = true;
  bool max_inclusive_ = true;
};

/// Allowed values of an integer key: an inclusive interval. IntRange(2, 64)
/// is [2, 64]; braces work in declarations: .integer("n", 8, {2, 64}, "...").
class IntRange {
 public:
  IntRange() = default;
  IntRange(std::int64_t min, std::int64_t max);

  static IntRange all() { return IntRange(); }
  static IntRange positive() { return at_least(1); }
  static IntRange non_negative() { return at_least(0); }
  static IntRange at_least(std::int64_t min);
  static IntRange at_most(std::int64_t max);

  bool contains(std::int64_t x) const { return x >= min_ && x <= max_; }
  bool bounded() const { return has_min() || has_max(); }
  /// ">= 1", "<= 10", "in [2, 64]", or "" when unbounded.
  std::string describe() const;

 private:
  bool has_min() const { return min_ != std::numeric_limits<std::int64_t>::min(); }
  bool has_max() const { return max_ != std::numeric_limits<std::int64_t>::max(); }

  std::int64_t min_ = std::numeric_limits<std::int64_t>::min();
  std::int64_t max_ = std::numeric_limits<std::int64_t>::max();
};

/// Allowed number of entries of a list key.
class Length {
 public:
  Length() = default;  ///< any length, including empty
  static Length any() { return Length(); }
  static Length exactly(std::size_t n);
  static Length at_least(std::size_t n);
  static Length between(std::size_t min, std::size_t max);

  bool contains(std::size_t n) const { return n >= min_ && n <= max_; }
  bool bounded() const { return min_ > 0 || max_ != unbounded; }
  /// "exactly 2", "1 to 3", "at least 1", or "" when any length is allowed.
  std::string describe() const;

 private:
  static constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();
  std::size_t min_ = 0;
  std::size_t max_ = unbounded;
};

enum class Type { boolean, integer, real, string, choice, reals, integers };

/// A value held by a key. string and choice keys both hold std::string.
using Value = std::variant<bool, std::int64_t, double, std::string,
                           std::vector<double>, std::vector<std::int64_t>>;

/// A value as it would be written in a deck: "64", "0.5", "quad", "[12, 2]".
std::string value_text(const Value& value);

/// One declared key, as the schema and the deck reference see it.
struct KeySpec {
  std::string name;  ///< "mach"
  std::string path;  ///< "flow.mach"
  std::string doc;
  Type type = Type::string;
  bool required = false;
  Value default_value;  ///< meaningless when required
  Range real_range;     ///< real, reals
  IntRange int_range;   ///< integer, integers
  Length length;        ///< reals, integers
  std::vector<std::string> choices;  ///< choice

  /// "real", "integer", "list of reals", ...
  std::string type_name() const;
  /// What is allowed beyond the type: "> 0", "one of: quad, tri",
  /// "exactly 2 entries, each in [0, 1]"; "" when any value of the type is.
  std::string allowed() const;
  /// The type and what is allowed, as a phrase for messages:
  /// "a real number > 0", "one of: quad, tri", "a list of 2 integers >= 1".
  std::string expectation() const;
  /// The default as written in a deck ("64", "0.5", "quad", "[12, 2]");
  /// "" for required keys.
  std::string default_text() const;
};

/// A mapping of keys and nested sections, in declaration order. The root of
/// a Schema is a Section with an empty name.
class Section {
 public:
  Section(std::string name, std::string path, std::string doc);
  Section(const Section&) = delete;
  Section& operator=(const Section&) = delete;
  Section(Section&&) = default;
  Section& operator=(Section&&) = default;
  ~Section();

  /// The nested section `name`, created on first use. A later call with a
  /// non-empty doc sets the doc when none was given before.
  Section& section(const std::string& name, const std::string& doc = "");

  Section& boolean(const std::string& name, bool default_value, const std::string& doc);
  Section& boolean(const std::string& name, Required, const std::string& doc);
  /// Catches boolean("x", "true", doc), which would otherwise convert the
  /// pointer to `true`.
  Section& boolean(const std::string& name, const char* default_value,
                   const std::string& doc) = delete;

  Section& integer(const std::string& name, std::int64_t default_value,
                   IntRange allowed, const std::string& doc);
  Section& integer(const std::string& name, Required, IntRange allowed,
                   const std::string& doc);

  Section& real(const std::string& name, double default_value, Range allowed,
                const std::string& doc);
  Section& real(const std::string& name, Required, Range allowed, const std::string& doc);

  Section& string(const std::string& name, std::string default_value, const std::string& doc);
  Section& string(const std::string& name, Required, const std::string& doc);

  Section& choice(const std::string& name, std::string default_value,
                  std::vector<std::string> choices, const std::string& doc);
  Section& choice(const std::string& name, Required, std::vector<std::string> choices,
                  const std::string& doc);

  Section& reals(const std::string& name, std::vector<double> default_value, Length length,
                 Range each, const std::string& doc);
  Section& reals(const std::string& name, Required, Length length, Range each,
                 const std::string& doc);

  Section& integers(const std::string& name, std::vector<std::int64_t> default_value,
                    Length length, IntRange each, const std::string& doc);
  Section& integers(const std::string& name, Required, Length length, IntRange each,
                    const std::string& doc);

  /// Read access, in declaration order (used by Deck and reference_markdown).
  struct Item {
    const KeySpec* key = nullptr;      ///< exactly one of key and section is set
    const Section* section = nullptr;
    const std::string& name() const;
  };
  std::vector<Item> items() const;
  const KeySpec* find_key(const std::string& name) const;
  const Section* find_section(const std::string& name) const;
  const std::string& name() const { return name_; }  ///< "" for the root
  const std::string& path() const { return path_; }  ///< "mesh.refine"; "" for the root
  const std::string& doc() const { return doc_; }

 private:
  struct Entry {
    std::unique_ptr<KeySpec> key;
    std::unique_ptr<Section> section;
  };
  Section& add(KeySpec spec);
  std::string child_path(const std::string& name) const;
  void check_new_name(const std::string& name) const;

  std::string name_;
  std::string path_;
  std::string doc_;
  std::vector<Entry> entries_;
};

/// The whole deck: the root section. Declare top-level keys on it directly.
class Schema : public Section {
 public:
  Schema() : Section("", "", "") {}
};

}  // namespace camber::deck
