/// @file
/// camber::deck::Keys — one table of a settings struct's deck keys, from
/// which both the schema and the reading of a deck are made.
///
/// A library settings struct owns its defaults (its member initialisers).
/// Its Keys table names each member's deck key, what values are allowed
/// and the help text. declare() puts the keys into a schema Section with
/// the defaults of a default-constructed struct, so a deck that leaves a
/// key out and a C++ program that leaves the member alone get the same
/// value; read() fills a struct from a validated Deck. An enum member is
/// declared as a choice from its EnumName table (core/enum_names.hpp), so
/// its names are written once, beside the enum.
///
/// @code
///   struct Plate {
///     double length_m = 1.0;
///     int cells = 64;
///     Shape shape = Shape::quads;  // names in shape_names
///   };
///   const deck::Keys<Plate>& plate_keys() {
///     static const deck::Keys<Plate> keys = deck::Keys<Plate>()
///         .real("length_m", &Plate::length_m, deck::Range::positive(), "Length, in metres.")
///         .integer("cells", &Plate::cells, {2, 4096}, "Cells along x.")
///         .choice("shape", &Plate::shape, shape_names, "Cell shape.");
///     return keys;
///   }
///   plate_keys().declare(schema.section("mesh", "The plate."));  // defaults from Plate{}
///   const Plate p = plate_keys().read(deck, "mesh");
/// @endcode
///
/// A key whose deck form is not one member (a list of two or three reals
/// into a point, say) is declared with custom(). A table may cover part of
/// a section, and several tables may fill one section; read() reads only
/// its own keys. Keys of a table are read from a deck validated against a
/// schema the same table declared: asking for another is a programming
/// error (camber::Error of kind failure), as in Deck.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <camber/core/enum_names.hpp>
#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>

namespace camber::deck {

template <class S>
class Keys {
 public:
  /// Declares the key in `section` with the default taken from `defaults`.
  using DeclareFn = std::function<void(Section& section, const S& defaults)>;
  /// Reads the key `path` (the section's path, a dot, the key) into `into`.
  using ReadFn = std::function<void(const Deck& deck, const std::string& path, S& into)>;

  Keys& real(const std::string& name, double S::*member, Range allowed, const std::string& doc) {
    return add(name, [=](Section& s, const S& d) { s.real(name, d.*member, allowed, doc); },
               [=](const Deck& deck, const std::string& p, S& s) { s.*member = deck.real(p); });
  }
  /// A real that every deck must give (the struct's default serves C++ only).
  Keys& real(const std::string& name, double S::*member, Required, Range allowed,
             const std::string& doc) {
    return add(name, [=](Section& s, const S&) { s.real(name, required, allowed, doc); },
               [=](const Deck& deck, const std::string& p, S& s) { s.*member = deck.real(p); });
  }
  template <class Int>
  Keys& integer(const std::string& name, Int S::*member, IntRange allowed, const std::string& doc) {
    return add(name,
               [=](Section& s, const S& d) {
                 s.integer(name, static_cast<std::int64_t>(d.*member), allowed, doc);
               },
               [=](const Deck& deck, const std::string& p, S& s) {
                 s.*member = static_cast<Int>(deck.integer(p));
               });
  }
  Keys& boolean(const std::string& name, bool S::*member, const std::string& doc) {
    return add(name, [=](Section& s, const S& d) { s.boolean(name, d.*member, doc); },
               [=](const Deck& deck, const std::string& p, S& s) { s.*member = deck.boolean(p); });
  }
  Keys& string(const std::string& name, std::string S::*member, const std::string& doc) {
    return add(name, [=](Section& s, const S& d) { s.string(name, d.*member, doc); },
               [=](const Deck& deck, const std::string& p, S& s) { s.*member = deck.string(p); });
  }
  /// A string member restricted to `choices`.
  Keys& choice(const std::string& name, std::string S::*member, std::vector<std::string> choices,
               const std::string& doc) {
    return add(name,
               [=](Section& s, const S& d) { s.choice(name, d.*member, choices, doc); },
               [=](const Deck& deck, const std::string& p, S& s) { s.*member = deck.string(p); });
  }
  /// An enum member named by its EnumName table (all of its names allowed).
  template <class E, class Names>
  Keys& choice(const std::string& name, E S::*member, const Names& names, const std::string& doc) {
    return choice(name, member, names, enum_names(names), doc);
  }
  /// An enum member allowed only the names in `allowed` (a subset of the
  /// table, in the order the reference lists them).
  template <class E, class Names>
  Keys& choice(const std::string& name, E S::*member, const Names& names,
               std::vector<std::string> allowed, const std::string& doc) {
    return add(name,
               [=, &names](Section& s, const S& d) {
                 s.choice(name, std::string(enum_name(names, d.*member)), allowed, doc);
               },
               [=, &names](const Deck& deck, const std::string& p, S& s) {
                 s.*member = enum_from_name(names, deck.string(p), p);
               });
  }
  Keys& reals(const std::string& name, std::vector<double> S::*member, Length length, Range each,
              const std::string& doc) {
    return add(name, [=](Section& s, const S& d) { s.reals(name, d.*member, length, each, doc); },
               [=](const Deck& deck, const std::string& p, S& s) { s.*member = deck.reals(p); });
  }
  template <class Int>
  Keys& integers(const std::string& name, std::vector<Int> S::*member, Length length,
                 IntRange each, const std::string& doc) {
    return add(name,
               [=](Section& s, const S& d) {
                 s.integers(name, std::vector<std::int64_t>((d.*member).begin(), (d.*member).end()),
                            length, each, doc);
               },
               [=](const Deck& deck, const std::string& p, S& s) {
                 const std::vector<std::int64_t>& v = deck.integers(p);
                 s.*member = std::vector<Int>(v.begin(), v.end());
               });
  }
  /// The keys of `table`, a table of the struct held in `member` (which
  /// must outlive this table: tables are function-local statics): declared
  /// with that member's defaults, read into it.
  template <class T>
  Keys& nested(T S::*member, const Keys<T>& table) {
    return nest(member, &table);
  }
  /// The same with a copy of `table`, which this table keeps: for a table
  /// made for this one alone (its help written for the caller, say).
  template <class T>
  Keys& nested_copy(T S::*member, Keys<T> table) {
    return nest(member, std::make_shared<const Keys<T>>(std::move(table)));
  }
  /// A key whose declaration and reading are written by hand.
  Keys& custom(const std::string& name, DeclareFn declare, ReadFn read) {
    return add(name, std::move(declare), std::move(read));
  }

  /// Declares every key of the table in `section`, defaults from `defaults`.
  void declare(Section& section, const S& defaults = S{}) const {
    for (const Entry& e : entries_) e.declare(section, defaults);
  }
  /// Reads every key of the table from the section `section_path` of a deck
  /// validated against a schema declare() filled; other members keep their
  /// values in `into`.
  void read(const Deck& deck, const std::string& section_path, S& into) const {
    for (const Entry& e : entries_) e.read(deck, section_path, into);
  }
  S read(const Deck& deck, const std::string& section_path) const {
    S s{};
    read(deck, section_path, s);
    return s;
  }
  /// The key names, in declaration order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Entry& e : entries_) out.insert(out.end(), e.names.begin(), e.names.end());
    return out;
  }

 private:
  struct Entry {
    std::vector<std::string> names;
    DeclareFn declare;
    ReadFn read;  ///< given the section's path
  };
  // `sub`: a pointer to the nested table, or a shared_ptr that keeps it.
  template <class T, class Table>
  Keys& nest(T S::*member, Table sub) {
    entries_.push_back({sub->names(),
                        [=](Section& s, const S& d) { sub->declare(s, d.*member); },
                        [=](const Deck& deck, const std::string& section_path, S& s) {
                          sub->read(deck, section_path, s.*member);
                        }});
    return *this;
  }
  Keys& add(const std::string& name, DeclareFn declare, ReadFn read_key) {
    entries_.push_back({{name}, std::move(declare),
                        [name, read_key = std::move(read_key)](const Deck& deck,
                                                               const std::string& section_path,
                                                               S& s) {
                          read_key(deck, section_path.empty() ? name : section_path + "." + name, s);
                        }});
    return *this;
  }
  std::vector<Entry> entries_;
};

}  // namespace camber::deck
