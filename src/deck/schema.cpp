#include <camber/deck/schema.hpp>

#include <cmath>
#include <utility>

#include "detail/text.hpp"
#include <camber/core/error.hpp>

namespace camber::deck {

using detail::format_integer;
using detail::format_real;

// ---------------------------------------------------------------- Range

Range::Range(double min, double max) : min_(min), max_(max) { check(); }

Range Range::at_least(double min) { return Range().and_at_least(min); }
Range Range::greater_than(double min) { return Range().and_greater_than(min); }
Range Range::at_most(double max) { return Range().and_at_most(max); }
Range Range::less_than(double max) { return Range().and_less_than(max); }

Range Range::and_at_least(double min) const {
  Range r = *this;
  r.min_ = min;
  r.min_inclusive_ = true;
  r.check();
  return r;
}
Range Range::and_greater_than(double min) const {
  Range r = *this;
  r.min_ = min;
  r.min_inclusive_ = false;
  r.check();
  return r;
}
Range Range::and_at_most(double max) const {
  Range r = *this;
  r.max_ = max;
  r.max_inclusive_ = true;
  r.check();
  return r;
}
Range Range::and_less_than(double max) const {
  Range r = *this;
  r.max_ = max;
  r.max_inclusive_ = false;
  r.check();
  return r;
}

void Range::check() const {
  CAMBER_REQUIRE(!std::isnan(min_) && !std::isnan(max_), "deck schema: a Range bound is NaN");
  const bool empty = min_ > max_ || (min_ == max_ && !(min_inclusive_ && max_inclusive_));
  CAMBER_REQUIRE(!empty, "deck schema: empty Range (no real satisfies "
                             << (min_inclusive_ ? ">= " : "> ") << format_real(min_) << " and "
                             << (max_inclusive_ ? "<= " : "< ") << format_real(max_) << ")");
}

bool Range::contains(double x) const {
  if (!std::isfinite(x)) return false;
  const bool above = min_inclusive_ ? x >= min_ : x > min_;
  const bool below = max_inclusive_ ? x <= max_ : x < max_;
  return above && below;
}

std::string Range::describe() const {
  if (has_min() && has_max())
    return std::string("in ") + (min_inclusive_ ? "[" : "(") + format_real(min_) + ", " +
           format_real(max_) + (max_inclusive_ ? "]" : ")");
  if (has_min()) return std::string(min_inclusive_ ? ">= " : "> ") + format_real(min_);
  if (has_max()) return std::string(max_inclusive_ ? "<= " : "< ") + format_real(max_);
  return "";
}

// ---------------------------------------------------------------- IntRange

IntRange::IntRange(std::int64_t min, std::int64_t max) : min_(min), max_(max) {
  CAMBER_REQUIRE(min <= max, "deck schema: empty IntRange [" << min << ", " << max << "]");
}

IntRange IntRange::at_least(std::int64_t min) {
  return IntRange(min, std::numeric_limits<std::int64_t>::max());
}
IntRange IntRange::at_most(std::int64_t max) {
  return IntRange(std::numeric_limits<std::int64_t>::min(), max);
}

std::string IntRange::describe() const {
  if (has_min() && has_max())
    return "in [" + format_integer(min_) + ", " + format_integer(max_) + "]";
  if (has_min()) return ">= " + format_integer(min_);
  if (has_max()) return "<= " + format_integer(max_);
  return "";
}

// ---------------------------------------------------------------- Length

Length Length::exactly(std::size_t n) { return between(n, n); }
Length Length::at_least(std::size_t n) { return between(n, unbounded); }
Length Length::between(std::size_t min, std::size_t max) {
  CAMBER_REQUIRE(min <= max, "deck schema: empty Length [" << min << ", " << max << "]");
  Length l;
  l.min_ = min;
  l.max_ = max;
  return l;
}

std::string Length::describe() const {
  if (min_ == max_) return "exactly " + std::to_string(min_);
  if (max_ == unbounded) return min_ == 0 ? "" : "at least " + std::to_string(min_);
  if (min_ == 0) return "at most " + std::to_string(max_);
  return std::to_string(min_) + " to " + std::to_string(max_);
}

// ---------------------------------------------------------------- KeySpec

namespace {

std::string list_text(const std::vector<std::string>& items) {
  return "[" + detail::join(items) + "]";
}

}  // namespace

std::string value_text(const Value& v) {
  struct {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return format_integer(i); }
    std::string operator()(double x) const { return format_real(x); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<double>& v) const {
      std::vector<std::string> items;
      for (double x : v) items.push_back(format_real(x));
      return list_text(items);
    }
    std::string operator()(const std::vector<std::int64_t>& v) const {
      std::vector<std::string> items;
      for (std::int64_t i : v) items.push_back(format_integer(i));
      return list_text(items);
    }
  } visitor;
  return std::visit(visitor, v);
}

std::string KeySpec::type_name() const {
  switch (type) {
    case Type::boolean: return "boolean";
    case Type::integer: return "integer";
    case Type::real: return "real";
    case Type::string: return "string";
    case Type::choice: return "choice";
    case Type::reals: return "list of reals";
    case Type::integers: return "list of integers";
  }
  return "?";
}

std::string KeySpec::allowed() const {
  switch (type) {
    case Type::boolean: return "true or false";
    case Type::integer: return int_range.describe();
    case Type::real: return real_range.describe();
    case Type::string: return "";
    case Type::choice: return "one of: " + detail::join(choices);
    case Type::reals:
    case Type::integers: {
      const std::string each = type == Type::reals ? real_range.describe() : int_range.describe();
      std::string text;
      if (length.bounded()) text = length.describe() + " entries";
      if (!each.empty()) text += (text.empty() ? "each " : ", each ") + each;
      return text;
    }
  }
  return "";
}

std::string KeySpec::expectation() const {
  auto with = [](std::string text, const std::string& constraint) {
    return constraint.empty() ? text : text + " " + constraint;
  };
  switch (type) {
    case Type::boolean: return "true or false";
    case Type::integer: return with("an integer", int_range.describe());
    case Type::real: return with("a real number", real_range.describe());
    case Type::string: return "a string";
    case Type::choice: return "one of: " + detail::join(choices);
    case Type::reals:
    case Type::integers: {
      std::string text = "a list of ";
      if (length.bounded()) text += length.describe() + " ";
      text += type == Type::reals ? "real numbers" : "integers";
      const std::string each = type == Type::reals ? real_range.describe() : int_range.describe();
      if (!each.empty()) text += ", each " + each;
      return text;
    }
  }
  return "";
}

std::string KeySpec::default_text() const {
  if (required) return "";
  return value_text(default_value);
}

// ---------------------------------------------------------------- Section

Section::Section(std::string name, std::string path, std::string doc)
    : name_(std::move(name)), path_(std::move(path)), doc_(std::move(doc)) {}

Section::~Section() = default;

const std::string& Section::Item::name() const { return key ? key->name : section->name(); }

std::vector<Section::Item> Section::items() const {
  std::vector<Item> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.push_back(Item{e.key.get(), e.section.get()});
  return out;
}

const KeySpec* Section::find_key(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.key && e.key->name == name) return e.key.get();
  return nullptr;
}

const Section* Section::find_section(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.section && e.section->name() == name) return e.section.get();
  return nullptr;
}

std::string Section::child_path(const std::string& name) const {
  return path_.empty() ? name : path_ + "." + name;
}

void Section::check_new_name(const std::string& name) const {
  bool valid = !name.empty();
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    valid = valid && ok;
  }
  CAMBER_REQUIRE(valid, "deck schema: invalid key name '"
                            << name << "' in " << (path_.empty() ? "the top level" : "'" + path_ + "'")
                            << "; use letters, digits, '_' and '-'");
  CAMBER_REQUIRE(find_key(name) == nullptr && find_section(name) == nullptr,
                 "deck schema: '" << child_path(name) << "' is declared twice");
}

Section& Section::section(const std::string& name, const std::string& doc) {
  for (Entry& e : entries_) {
    if (e.section && e.section->name() == name) {
      if (e.section->doc_.empty()) e.section->doc_ = doc;
      return *e.section;
    }
  }
  check_new_name(name);
  Entry e;
  e.section = std::make_unique<Section>(name, child_path(name), doc);
  entries_.push_back(std::move(e));
  return *entries_.back().section;
}

Section& Section::add(KeySpec spec) {
  check_new_name(spec.name);
  spec.path = child_path(spec.name);
  if (!spec.required) {
    const std::string where = "deck schema: default of '" + spec.path + "' ";
    const Value& v = spec.default_value;
    switch (spec.type) {
      case Type::integer:
        CAMBER_REQUIRE(spec.int_range.contains(std::get<std::int64_t>(v)),
                       where << spec.default_text() << " is not " << spec.int_range.describe());
        break;
      case Type::real:
        CAMBER_REQUIRE(spec.real_range.contains(std::get<double>(v)),
                       where << spec.default_text() << " is not " << spec.real_range.describe());
        break;
      case Type::choice: {
        const std::string& s = std::get<std::string>(v);
        bool found = false;
        for (const std::string& c : spec.choices) found = found || c == s;
        CAMBER_REQUIRE(found, where << "'" << s << "' is not one of: " << detail::join(spec.choices));
        break;
      }
      case Type::reals: {
        const auto& list = std::get<std::vector<double>>(v);
        bool ok = spec.length.contains(list.size());
        for (double x : list) ok = ok && spec.real_range.contains(x);
        CAMBER_REQUIRE(ok, where << spec.default_text() << " is not " << spec.expectation());
        break;
      }
      case Type::integers: {
        const auto& list = std::get<std::vector<std::int64_t>>(v);
        bool ok = spec.length.contains(list.size());
        for (std::int64_t x : list) ok = ok && spec.int_range.contains(x);
        CAMBER_REQUIRE(ok, where << spec.default_text() << " is not " << spec.expectation());
        break;
      }
      case Type::boolean:
      case Type::string: break;
    }
  }
  if (spec.type == Type::choice) {
    CAMBER_REQUIRE(!spec.choices.empty(),
                   "deck schema: choice '" << spec.path << "' has no allowed values");
    for (std::size_t i = 0; i < spec.choices.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        CAMBER_REQUIRE(spec.choices[i] != spec.choices[j], "deck schema: choice '"
                                                               << spec.path << "' lists '"
                                                               << spec.choices[i] << "' twice");
  }
  Entry e;
  e.key = std::make_unique<KeySpec>(std::move(spec));
  entries_.push_back(std::move(e));
  return *this;
}

namespace {

KeySpec make_spec(const std::string& name, Type type, const std::string& doc, bool required,
                  Value default_value) {
  KeySpec spec;
  spec.name = name;
  spec.type = type;
  spec.doc = doc;
  spec.required = required;
  spec.default_value = std::move(default_value);
  return spec;
}

}  // namespace

Section& Section::boolean(const std::string& name, bool default_value, const std::string& doc) {
  return add(make_spec(name, Type::boolean, doc, false, default_value));
}
Section& Section::boolean(const std::string& name, Required, const std::string& doc) {
  return add(make_spec(name, Type::boolean, doc, true, false));
}

Section& Section::integer(const std::string& name, std::int64_t default_value, IntRange allowed,
                          const std::string& doc) {
  KeySpec spec = make_spec(name, Type::integer, doc, false, default_value);
  spec.int_range = allowed;
  return add(std::move(spec));
}
Section& Section::integer(const std::string& name, Required, IntRange allowed,
                          const std::string& doc) {
  KeySpec spec = make_spec(name, Type::integer, doc, true, std::int64_t{0});
  spec.int_range = allowed;
  return add(std::move(spec));
}

Section& Section::real(const std::string& name, double default_value, Range allowed,
                       const std::string& doc) {
  KeySpec spec = make_spec(name, Type::real, doc, false, default_value);
  spec.real_range = allowed;
  return add(std::move(spec));
}
Section& Section::real(const std::string& name, Required, Range allowed, const std::string& doc) {
  KeySpec spec = make_spec(name, Type::real, doc, true, 0.0);
  spec.real_range = allowed;
  return add(std::move(spec));
}

Section& Section::string(const std::string& name, std::string default_value,
                         const std::string& doc) {
  return add(make_spec(name, Type::string, doc, false, std::move(default_value)));
}
Section& Section::string(const std::string& name, Required, const std::string& doc) {
  return add(make_spec(name, Type::string, doc, true, std::string()));
}

Section& Section::choice(const std::string& name, std::string default_value,
                         std::vector<std::string> choices, const std::string& doc) {
  KeySpec spec = make_spec(name, Type::choice, doc, false, std::move(default_value));
  spec.choices = std::move(choices);
  return add(std::move(spec));
}
Section& Section::choice(const std::string& name, Required, std::vector<std::string> choices,
                         const std::string& doc) {
  KeySpec spec = make_spec(name, Type::choice, doc, true, std::string());
  spec.choices = std::move(choices);
  return add(std::move(spec));
}

Section& Section::reals(const std::string& name, std::vector<double> default_value,
                        Length length, Range each, const std::string& doc) {
  KeySpec spec = make_spec(name, Type::reals, doc, false, std::move(default_value));
  spec.length = length;
  spec.real_range = each;
  return add(std::move(spec));
}
Section& Section::reals(const std::string& name, Required, Length length, Range each,
                        const std::string& doc) {
  KeySpec spec = make_spec(name, Type::reals, doc, true, std::vector<double>());
  spec.length = length;
  spec.real_range = each;
  return add(std::move(spec));
}

Section& Section::integers(const std::string& name, std::vector<std::int64_t> default_value,
                           Length length, IntRange each, const std::string& doc) {
  KeySpec spec = make_spec(name, Type::integers, doc, false, std::move(default_value));
  spec.length = length;
  spec.int_range = each;
  return add(std::move(spec));
}
Section& Section::integers(const std::string& name, Required, Length length, IntRange each,
                           const std::string& doc) {
  KeySpec spec = make_spec(name, Type::integers, doc, true, std::vector<std::int64_t>());
  spec.length = length;
  spec.int_range = each;
  return add(std::move(spec));
}

}  // namespace camber::deck
