#include <camber/deck/reference.hpp>

#include <sstream>
#include <vector>

namespace camber::deck {

namespace {

// Table cells: a '|' would end the cell, a newline the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string code(const std::string& text) { return "`" + cell(text) + "`"; }

std::string default_cell(const KeySpec& spec) {
  if (spec.required) return "*required*";
  const std::string text = spec.default_text();
  if (text.empty()) return "`\"\"`";
  return code(text);
}

std::string allowed_cell(const KeySpec& spec) {
  if (spec.type == Type::choice) {
    std::string out;
    for (std::size_t i = 0; i < spec.choices.size(); ++i)
      out += (i > 0 ? ", " : "") + code(spec.choices[i]);
    return out;
  }
  const std::string allowed = spec.allowed();
  return allowed.empty() ? "any" : cell(allowed);
}

void table(std::ostringstream& out, const std::vector<const KeySpec*>& keys) {
  out << "| Key | Type | Default | Allowed | Description |\n"
      << "|---|---|---|---|---|\n";
  for (const KeySpec* k : keys)
    out << "| " << code(k->path) << " | " << k->type_name() << " | " << default_cell(*k) << " | "
        << allowed_cell(*k) << " | " << cell(k->doc) << " |\n";
}

void section_text(std::ostringstream& out, const Section& section) {
  std::vector<const KeySpec*> keys;
  std::vector<const Section*> subsections;
  for (const Section::Item& item : section.items()) {
    if (item.key) keys.push_back(item.key);
    else subsections.push_back(item.section);
  }
  out << "\n## " << (section.path().empty() ? "Top-level keys" : code(section.path())) << "\n";
  if (!section.doc().empty()) out << "\n" << section.doc() << "\n";
  if (!subsections.empty()) {
    out << "\nSections: ";
    for (std::size_t i = 0; i < subsections.size(); ++i)
      out << (i > 0 ? ", " : "") << code(subsections[i]->path());
    out << ".\n";
  }
  if (!keys.empty()) {
    out << "\n";
    table(out, keys);
  }
  for (const Section* s : subsections) section_text(out, *s);
}

}  // namespace

std::string reference_markdown(const Schema& schema, const std::string& title) {
  std::ostringstream out;
  out << "# " << title << "\n\n"
      << "<!-- Generated from the deck schema by camber::deck::reference_markdown; do not edit. "
         "-->\n\n"
      << "A deck is a YAML mapping. Keys marked *required* have no default; every other key "
         "may be left out. Booleans are `true` or `false`; integers are written without a "
         "decimal point; reals are finite; lists are written `[a, b, c]`. Units are part of "
         "key names.\n";
  section_text(out, schema);
  return out.str();
}

}  // namespace camber::deck
