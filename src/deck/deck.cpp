#include <camber/deck/deck.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "detail/text.hpp"
#include <camber/core/error.hpp>

namespace camber::deck {

namespace detail {

// Walks a parsed YAML document against a Schema, collecting every problem
// (in file order) before throwing one bad-input error for all of them.
class Validator {
 public:
  Validator(std::string source, const Schema& schema) : schema_(schema) {
    deck_.source_ = std::move(source);
    prefill(schema_);
  }

  Deck validate(const std::string& text);

 private:
  struct Pos {
    int line = 0;  // 1-based; 0 when unknown
    int column = 0;
  };
  struct Problem {
    Pos pos;
    std::string text;
  };

  static Pos pos_of(const YAML::Mark& mark) {
    if (mark.line < 0 || mark.column < 0) return Pos{};
    return Pos{mark.line + 1, mark.column + 1};
  }
  // Where a value was written. A missing value (`key:`) has no useful mark
  // of its own, so it is reported at its key.
  static Pos value_pos(const YAML::Node& value, Pos key_pos) {
    if (value.IsNull()) return key_pos;
    const Pos p = pos_of(value.Mark());
    return p.line > 0 ? p : key_pos;
  }

  std::string at(Pos pos) const {
    if (pos.line <= 0) return deck_.source_;
    return deck_.source_ + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
  }
  void problem(Pos pos, std::string text) { problems_.push_back({pos, std::move(text)}); }
  [[noreturn]] void fail(Pos pos, const std::string& text) const {
    ::camber::detail::throw_error(ErrorKind::bad_input, at(pos) + ": " + text, __FILE__,
                                  __LINE__);
  }

  Deck::Entry& entry(const std::string& path) { return deck_.entries_[deck_.index_.at(path)]; }

  void prefill(const Section& section);
  void visit(const Section& section, const YAML::Node& map);
  void read_key(const KeySpec& spec, const YAML::Node& value, Pos key_pos);
  std::optional<Value> read_scalar(const KeySpec& spec, const std::string& path,
                                   const YAML::Node& node, Pos pos);
  std::optional<Value> read_list(const KeySpec& spec, const YAML::Node& node, Pos pos);
  void unknown_key(const Section& section, const std::string& name, Pos pos);
  void check_required(const Section& section, Pos anchor, const std::string& absent_section);
  void throw_problems();

  const Schema& schema_;
  Deck deck_;
  std::vector<Problem> problems_;
};

namespace {

constexpr std::size_t max_reported_problems = 25;

// How a node reads in "got ..." phrases.
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return "no value";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar: break;
  }
  std::string text = node.Scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  if (node.Tag() == "!") return "the quoted string \"" + text + "\"";
  return "'" + text + "'";
}

bool is_quoted(const YAML::Node& node) { return node.Tag() == "!"; }

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_inf_or_nan(const std::string& text) {
  std::string t = lowercase(text);
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t = t.substr(1);
  return t == ".inf" || t == ".nan" || t == "inf" || t == "nan" || t == "infinity";
}

bool all_digits(const std::string& text) {
  std::size_t start = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  if (start == text.size()) return false;
  for (std::size_t i = start; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9') return false;
  return true;
}

void collect_paths(const Section& section, const std::string& name,
                   std::vector<std::string>& out) {
  for (const Section::Item& item : section.items()) {
    if (item.key && item.key->name == name) out.push_back(item.key->path);
    if (item.section) {
      if (item.section->name() == name) out.push_back(item.section->path());
      collect_paths(*item.section, name, out);
    }
  }
}

std::string quoted_list(const std::vector<std::string>& words, const std::string& separator) {
  std::vector<std::string> q;
  for (const std::string& w : words) q.push_back("'" + w + "'");
  return join(q, separator);
}

}  // namespace

void Validator::prefill(const Section& section) {
  for (const Section::Item& item : section.items()) {
    Deck::Entry e;
    if (item.key) {
      e.spec = *item.key;
      e.value = item.key->default_value;
    } else {
      e.is_section = true;
      e.spec.name = item.section->name();
      e.spec.path = item.section->path();
      e.spec.doc = item.section->doc();
    }
    const std::string path = e.spec.path;
    deck_.index_.emplace(path, deck_.entries_.size());
    deck_.entries_.push_back(std::move(e));
    if (item.section) prefill(*item.section);
  }
}

Deck Validator::validate(const std::string& text) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    fail(pos_of(e.mark), "malformed YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    fail(pos_of(e.mark), "cannot read YAML: " + e.msg);
  }
  if (documents.empty() || (documents.size() == 1 && documents[0].IsNull()))
    fail(Pos{}, "the deck is empty; expected a mapping of keys ('key: value' lines)");
  if (documents.size() > 1)
    fail(pos_of(documents[1].Mark()),
         CAMBER_MSG("the file holds " << documents.size()
                                      << " YAML documents (separated by '---'); a deck is one "
                                         "document"));
  const YAML::Node& root = documents[0];
  if (!root.IsMap())
    fail(pos_of(root.Mark()), "the top level of a deck must be a mapping of keys ('key: value' "
                              "lines); got " + describe(root));

  visit(schema_, root);
  check_required(schema_, Pos{1, 1}, "");
  throw_problems();
  return std::move(deck_);
}

void Validator::visit(const Section& section, const YAML::Node& map) {
  std::vector<std::pair<std::string, Pos>> seen;
  // Nodes are copied (they are handles): yaml-cpp's iterator returns its
  // key/value pair by value, so references into it would dangle.
  for (const auto& pair : map) {
    const YAML::Node key = pair.first;
    const YAML::Node value = pair.second;
    const Pos key_pos = pos_of(key.Mark());
    if (!key.IsScalar()) {
      problem(key_pos, "keys must be plain names; got " + describe(key) + " as a key in " +
                           (section.path().empty() ? "the top level" : "'" + section.path() + "'"));
      continue;
    }
    const std::string name = key.Scalar();
    const std::string path = section.path().empty() ? name : section.path() + "." + name;

    const auto first = std::find_if(seen.begin(), seen.end(),
                                     [&](const auto& s) { return s.first == name; });
    if (first != seen.end()) {
      problem(key_pos, CAMBER_MSG("duplicate key '" << path << "' (first given at line "
                                                    << first->second.line << ", column "
                                                    << first->second.column
                                                    << "); give each key once"));
      continue;
    }
    seen.emplace_back(name, key_pos);

    if (const KeySpec* spec = section.find_key(name)) {
      read_key(*spec, value, key_pos);
    } else if (const Section* sub = section.find_section(name)) {
      Deck::Entry& e = entry(sub->path());
      e.given = true;
      e.line = key_pos.line;
      e.column = key_pos.column;
      if (value.IsMap()) {
        visit(*sub, value);
      } else if (!value.IsNull()) {  // `mesh:` alone is an empty section
        std::vector<std::string> names;
        for (const Section::Item& item : sub->items()) names.push_back(item.name());
        problem(value_pos(value, key_pos),
                "'" + path + "' is a section: it must be a mapping of keys (" + join(names) +
                    "); got " + describe(value));
      }
    } else {
      unknown_key(section, name, key_pos);
    }
  }
}

void Validator::unknown_key(const Section& section, const std::string& name, Pos pos) {
  const std::string path = section.path().empty() ? name : section.path() + "." + name;
  std::vector<std::string> names;
  for (const Section::Item& item : section.items()) names.push_back(item.name());

  std::ostringstream out;
  out << "unknown key '" << path << "'";
  const std::string level =
      section.path().empty() ? "Valid top-level keys" : "Valid keys in '" + section.path() + "'";
  if (const auto suggestion = nearest(name, names)) {
    out << "; did you mean '" << *suggestion << "'? " << level << ": " << join(names);
    problem(pos, out.str());
    return;
  }
  // A key written in the wrong section is a common slip: name where it lives.
  std::vector<std::string> elsewhere;
  collect_paths(schema_, name, elsewhere);
  if (!elsewhere.empty()) {
    out << "; did you mean " << quoted_list(elsewhere, " or ") << " (in another section)? "
        << level << ": " << join(names);
  } else if (names.empty()) {
    out << "; '" << section.path() << "' takes no keys";
  } else {
    out << ". " << level << ": " << join(names);
  }
  problem(pos, out.str());
}

void Validator::read_key(const KeySpec& spec, const YAML::Node& value, Pos key_pos) {
  Deck::Entry& e = entry(spec.path);
  const Pos pos = value_pos(value, key_pos);
  // Marked as given even when invalid, so that a bad value is not also
  // reported as a missing required key.
  e.given = true;
  e.line = pos.line;
  e.column = pos.column;
  std::optional<Value> v;
  if (spec.type == Type::reals || spec.type == Type::integers)
    v = read_list(spec, value, pos);
  else
    v = read_scalar(spec, spec.path, value, pos);
  if (v) e.value = std::move(*v);
}

std::optional<Value> Validator::read_scalar(const KeySpec& spec, const std::string& path,
                                            const YAML::Node& node, Pos pos) {
  const std::string must = "'" + path + "' must be " + spec.expectation();
  if (node.IsNull()) {
    problem(pos, "'" + path + "' has no value; it must be " + spec.expectation());
    return std::nullopt;
  }
  if (!node.IsScalar()) {
    problem(pos, must + "; got " + describe(node));
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  const bool quoted = is_quoted(node);
  const std::string got = "; got " + describe(node);

  switch (spec.type) {
    case Type::boolean:
      if (!quoted && (text == "true" || text == "false")) return Value(text == "true");
      problem(pos, must + got);
      return std::nullopt;

    case Type::integer: {
      const std::optional<std::int64_t> i = parse_integer(text);
      if (!i || quoted) {
        std::string why;
        if (i && quoted) why = " (remove the quotes to write a number)";
        else if (all_digits(text)) why = ", which does not fit in a 64-bit integer";
        else if (looks_like_real(text)) why = ", which is not an integer";
        problem(pos, must + got + why);
        return std::nullopt;
      }
      if (!spec.int_range.contains(*i)) {
        problem(pos, "'" + path + "' = " + text + " is out of range: it must be " +
                         spec.expectation());
        return std::nullopt;
      }
      return Value(*i);
    }

    case Type::real: {
      const std::optional<double> x = parse_real(text);
      if (!x || quoted) {
        std::string why;
        if (x && quoted) why = " (remove the quotes to write a number)";
        else if (is_inf_or_nan(text)) why = "; infinity and NaN are not allowed";
        else if (looks_like_real(text)) why = ", which is too large or too small for a double";
        problem(pos, must + got + why);
        return std::nullopt;
      }
      if (!spec.real_range.contains(*x)) {
        problem(pos, "'" + path + "' = " + text + " is out of range: it must be " +
                         spec.expectation());
        return std::nullopt;
      }
      return Value(*x);
    }

    case Type::string: return Value(text);

    case Type::choice: {
      if (std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end())
        return Value(text);
      std::string message = "'" + path + "' = '" + text + "' is not allowed: it must be " +
                            spec.expectation();
      if (const auto suggestion = nearest(text, spec.choices))
        message += "; did you mean '" + *suggestion + "'?";
      problem(pos, message);
      return std::nullopt;
    }

    case Type::reals:
    case Type::integers: break;
  }
  CAMBER_REQUIRE(false, "deck: read_scalar called for a list key '" << path << "'");
  return std::nullopt;
}

std::optional<Value> Validator::read_list(const KeySpec& spec, const YAML::Node& node, Pos pos) {
  if (node.IsNull()) {
    problem(pos, "'" + spec.path + "' has no value; it must be " + spec.expectation() +
                     " (write [] for an empty list)");
    return std::nullopt;
  }
  if (!node.IsSequence()) {
    problem(pos, "'" + spec.path + "' must be " + spec.expectation() + "; got " +
                     describe(node) + " (write a list as [a, b, c])");
    return std::nullopt;
  }
  if (!spec.length.contains(node.size())) {
    problem(pos, CAMBER_MSG("'" << spec.path << "' has " << node.size()
                                << (node.size() == 1 ? " entry" : " entries") << "; it must be "
                                << spec.expectation()));
    return std::nullopt;
  }
  KeySpec element = spec;
  element.type = spec.type == Type::reals ? Type::real : Type::integer;
  std::vector<double> reals;
  std::vector<std::int64_t> integers;
  bool ok = true;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    const std::string path = spec.path + "[" + std::to_string(i) + "]";
    const std::optional<Value> v = read_scalar(element, path, item, value_pos(item, pos));
    if (!v) {
      ok = false;
    } else if (spec.type == Type::reals) {
      reals.push_back(std::get<double>(*v));
    } else {
      integers.push_back(std::get<std::int64_t>(*v));
    }
  }
  if (!ok) return std::nullopt;
  if (spec.type == Type::reals) return Value(std::move(reals));
  return Value(std::move(integers));
}

void Validator::check_required(const Section& section, Pos anchor,
                               const std::string& absent_section) {
  for (const Section::Item& item : section.items()) {
    if (item.key) {
      const KeySpec& spec = *item.key;
      if (!spec.required || entry(spec.path).given) continue;
      std::ostringstream out;
      out << "missing required ";
      if (section.path().empty())
        out << "top-level key '" << spec.path << "'";
      else if (!absent_section.empty())
        out << "key '" << spec.path << "' (section '" << absent_section << "' is absent)";
      else
        out << "key '" << spec.path << "' in section '" << section.path() << "'";
      out << ": it must be " << spec.expectation();
      if (!spec.doc.empty()) out << " (" << spec.doc << ")";
      problem(anchor, out.str());
    } else {
      const Deck::Entry& e = entry(item.section->path());
      if (e.given && absent_section.empty())
        check_required(*item.section, Pos{e.line, e.column}, "");
      else
        check_required(*item.section, anchor,
                       absent_section.empty() ? item.section->path() : absent_section);
    }
  }
}

void Validator::throw_problems() {
  if (problems_.empty()) return;
  std::stable_sort(problems_.begin(), problems_.end(), [](const Problem& a, const Problem& b) {
    return std::make_pair(a.pos.line, a.pos.column) < std::make_pair(b.pos.line, b.pos.column);
  });
  std::ostringstream out;
  const std::size_t shown = std::min(problems_.size(), max_reported_problems);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) out << "\n";
    out << at(problems_[i].pos) << ": " << problems_[i].text;
  }
  if (problems_.size() > shown)
    out << "\n" << deck_.source_ << ": ... and " << problems_.size() - shown << " more problems";
  CAMBER_INPUT_REQUIRE(false, out.str());
}

}  // namespace detail

// ---------------------------------------------------------------- Deck

namespace {

const char* accessor_for(Type type) {
  switch (type) {
    case Type::boolean: return "boolean";
    case Type::integer: return "integer";
    case Type::real: return "real";
    case Type::string:
    case Type::choice: return "string";
    case Type::reals: return "reals";
    case Type::integers: return "integers";
  }
  return "?";
}

}  // namespace

const Deck::Entry& Deck::find(const std::string& key, const char* accessor) const {
  const auto it = index_.find(key);
  if (it == index_.end()) {
    std::vector<std::string> paths;
    for (const Entry& e : entries_) paths.push_back(e.spec.path);
    const auto suggestion = detail::nearest(key, paths);
    CAMBER_REQUIRE(false, "Deck::" << accessor << "(\"" << key << "\"): '" << key
                                   << "' is not declared in the deck schema"
                                   << (suggestion ? "; did you mean '" + *suggestion + "'?" : ""));
  }
  return entries_[it->second];
}

const Deck::Entry& Deck::typed(const std::string& key, Type type, const char* accessor) const {
  const Entry& e = find(key, accessor);
  CAMBER_REQUIRE(!e.is_section, "Deck::" << accessor << "(\"" << key << "\"): '" << key
                                         << "' is a section, not a key");
  const bool matches =
      e.spec.type == type || (type == Type::string && e.spec.type == Type::choice);
  CAMBER_REQUIRE(matches, "Deck::" << accessor << "(\"" << key << "\"): '" << key
                                   << "' is declared as " << e.spec.type_name() << "; use Deck::"
                                   << accessor_for(e.spec.type) << "()");
  return e;
}

bool Deck::boolean(const std::string& key) const {
  return std::get<bool>(typed(key, Type::boolean, "boolean").value);
}
std::int64_t Deck::integer(const std::string& key) const {
  return std::get<std::int64_t>(typed(key, Type::integer, "integer").value);
}
double Deck::real(const std::string& key) const {
  return std::get<double>(typed(key, Type::real, "real").value);
}
const std::string& Deck::string(const std::string& key) const {
  return std::get<std::string>(typed(key, Type::string, "string").value);
}
const std::vector<double>& Deck::reals(const std::string& key) const {
  return std::get<std::vector<double>>(typed(key, Type::reals, "reals").value);
}
const std::vector<std::int64_t>& Deck::integers(const std::string& key) const {
  return std::get<std::vector<std::int64_t>>(typed(key, Type::integers, "integers").value);
}

bool Deck::has(const std::string& key) const { return find(key, "has").given; }

std::string Deck::where(const std::string& key) const {
  const Entry& e = find(key, "where");
  if (!e.given) return source_ + " (default)";
  if (e.line <= 0) return source_;
  return source_ + ":" + std::to_string(e.line) + ":" + std::to_string(e.column);
}

std::string Deck::text(const std::string& key) const {
  const Entry& e = find(key, "text");
  CAMBER_REQUIRE(!e.is_section, "Deck::text(\"" << key << "\"): '" << key
                                                << "' is a section, not a key");
  return value_text(e.value);
}

std::function<void(const std::string&, const std::string&)> Deck::rejecter(
    const std::string& section) const {
  return [this, section](const std::string& member, const std::string& why) {
    reject(section + "." + member, why);
  };
}

void Deck::reject(const std::string& key, const std::string& why) const {
  const Entry& e = find(key, "reject");
  std::string message;
  if (e.is_section) {
    message = where(key) + ": section '" + key + "': " + why;
  } else {
    const bool textual = e.spec.type == Type::string || e.spec.type == Type::choice;
    const std::string shown = textual ? "'" + value_text(e.value) + "'" : value_text(e.value);
    message = where(key) + ": '" + key + "' = " + shown + ": " + why;
  }
  ::camber::detail::throw_error(ErrorKind::bad_input, message, __FILE__, __LINE__);
}

std::vector<std::string> Deck::keys() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_)
    if (!e.is_section) out.push_back(e.spec.path);
  return out;
}

// ---------------------------------------------------------------- loading

Deck parse_deck(const std::string& yaml_text, const std::string& display_name,
                const Schema& schema) {
  detail::Validator validator(display_name, schema);
  return validator.validate(yaml_text);
}

std::string deck_relative_path(const Deck& d, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return p.string();
  return (std::filesystem::path(d.source()).parent_path() / p).lexically_normal().string();
}

std::string deck_text(const Deck& d) {
  std::ifstream in(d.source());
  std::ostringstream text;
  text << in.rdbuf();
  return in.good() || in.eof() ? text.str() : std::string();
}

std::string read_deck_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    std::error_code cwd_ec;
    const fs::path cwd = fs::current_path(cwd_ec);
    CAMBER_INPUT_REQUIRE(false, "cannot read deck '" << path << "': no such file"
                                                     << (cwd_ec ? "" : " (working directory "
                                                                           + cwd.string() + ")"));
  }
  CAMBER_INPUT_REQUIRE(!fs::is_directory(status),
                       "cannot read deck '" << path << "': it is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    CAMBER_INPUT_REQUIRE(false, "cannot read deck '" << path << "': "
                                                     << (err != 0 ? std::strerror(err)
                                                                  : "cannot open file"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  CAMBER_INPUT_REQUIRE(!in.bad(), "cannot read deck '" << path << "': read error");
  return text.str();
}

Deck load_deck(const std::string& path, const Schema& schema) {
  return parse_deck(read_deck_file(path), path, schema);
}

ScalarAt top_level_scalar(const std::string& yaml_text, const std::string& key) {
  ScalarAt r;
  try {
    const YAML::Node root = YAML::Load(yaml_text);
    if (!root.IsMap()) return r;
    r.parsed = true;
    const YAML::Node value = root[key];
    if (!value || !value.IsScalar()) return r;
    r.found = true;
    r.value = value.Scalar();
    r.line = value.Mark().line + 1;
    r.column = value.Mark().column + 1;
  } catch (const YAML::Exception&) {
    r.parsed = false;  // parse_deck reports it, with its line
  }
  return r;
}

}  // namespace camber::deck
