#include <camber/nn/registry/entry_text.hpp>

#include <camber/nn/io/model_file.hpp>

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace camber::nn::registry {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) v.push_back(line);
  return v;
}

// A line diff of a and b (longest common subsequence): "- " lines only in
// a, "+ " only in b, common lines left out.
// Text for a terminal: every line of `text` with its control bytes and
// malformed UTF-8 shown as \xNN (a card's fields come from a file anyone
// may have written), the line breaks kept.
std::string terminal_text(const std::string& text) {
  std::string out;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    out += io::printable_text(text.substr(begin, end - begin));
    if (end < text.size()) out += '\n';
    begin = end + 1;
  }
  return out;
}

std::string line_diff(const std::string& a, const std::string& b) {
  const std::vector<std::string> x = lines_of(a), y = lines_of(b);
  const size_t n = x.size(), m = y.size();
  std::ostringstream out;
  // The table is (n + 1)(m + 1) ints: past 4 million (two decks of 2,000
  // lines) every line is listed as changed rather than matched.
  if ((n + 1) * (m + 1) > 4'000'000) {
    for (const std::string& line : x) out << "    - " << line << '\n';
    for (const std::string& line : y) out << "    + " << line << '\n';
    return out.str();
  }
  std::vector<std::vector<int>> l(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      l[i][j] = x[i] == y[j] ? l[i + 1][j + 1] + 1 : std::max(l[i + 1][j], l[i][j + 1]);
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] == y[j]) {
      ++i, ++j;
    } else if (j < m && (i == n || l[i][j + 1] >= l[i + 1][j])) {
      out << "    + " << y[j++] << '\n';
    } else {
      out << "    - " << x[i++] << '\n';
    }
  }
  return out.str();
}

}  // namespace

std::string rmse_text(const Entry& e) {
  std::ostringstream s;
  s << std::setprecision(4);
  for (size_t k = 0; k < e.validation_rmse.size(); ++k)
    s << (k ? ", " : "") << (k < e.outputs.size() ? e.outputs[k] : "?") << " " << e.validation_rmse[k];
  return e.validation_rmse.empty() ? "-" : s.str();
}

std::string describe(const Entry& e) {
  std::ostringstream s;
  s << e.reference() << "  (" << stage_name(e.stage) << ")\n"
    << "  file           " << e.blob << "\n"
    << "  sha256         " << e.sha256 << "\n"
    << "  signed by      " << (e.signed_by.empty() ? "(unsigned)" : "key " + e.signed_by) << "\n"
    << "  registered     " << e.registered << " from " << e.source << "\n"
    << "  trained        " << e.created << ", camber " << e.camber_version
    << (e.git_revision.empty() ? "" : " (" + e.git_revision + ")") << ", " << e.epochs
    << " epochs\n"
    << "  training data  " << e.data_path << ", " << e.data_rows << " rows, sha256 "
    << e.data_sha256 << "\n"
    << "  validation     RMSE " << rmse_text(e) << "\n";
  const auto block = [&](const char* title, const std::string& text) {
    s << "  " << title << (text.empty() ? " (not recorded)\n" : ":\n");
    for (const std::string& line : lines_of(text)) s << "    " << line << '\n';
  };
  block("training deck", e.training_deck);
  block("sample deck (lineage of the data)", e.sample_deck);
  return terminal_text(s.str());
}

std::string diff(const Entry& a, const Entry& b) {
  std::ostringstream s;
  s << a.reference() << " -> " << b.reference() << '\n';
  const auto field = [&](const char* name, const std::string& x, const std::string& y) {
    s << "  " << std::left << std::setw(14) << name << (x == y ? x + " (same)" : x + " -> " + y)
      << '\n';
  };
  field("stage", stage_name(a.stage), stage_name(b.stage));
  field("sha256", a.sha256, b.sha256);
  field("data sha256", a.data_sha256, b.data_sha256);
  field("data rows", std::to_string(a.data_rows), std::to_string(b.data_rows));
  field("epochs", std::to_string(a.epochs), std::to_string(b.epochs));
  field("git revision", a.git_revision, b.git_revision);
  s << "  validation RMSE\n";
  s << std::setprecision(4);
  for (size_t k = 0; k < std::max(a.validation_rmse.size(), b.validation_rmse.size()); ++k) {
    const std::string out = k < b.outputs.size() ? b.outputs[k] : k < a.outputs.size() ? a.outputs[k] : "?";
    s << "    " << out << ": ";
    if (k < a.validation_rmse.size() && k < b.validation_rmse.size()) {
      const double x = a.validation_rmse[k], y = b.validation_rmse[k];
      s << x << " -> " << y << " (" << std::showpos << std::setprecision(3) << 100.0 * (y - x) / x
        << "%" << std::noshowpos << std::setprecision(4) << ")\n";
    } else {
      s << "only in one of them\n";
    }
  }
  const std::string d = line_diff(a.training_deck, b.training_deck);
  s << "  training deck" << (d.empty() ? " (same)\n" : ":\n" + d);
  const std::string sd = line_diff(a.sample_deck, b.sample_deck);
  s << "  sample deck" << (sd.empty() ? " (same)\n" : ":\n" + sd);
  return terminal_text(s.str());
}

std::string list_table(const std::vector<Entry>& entries) {
  // The model column holds the longest reference and two spaces.
  std::size_t width = 24;
  for (const Entry& e : entries) width = std::max(width, e.reference().size() + 2);
  const int model_width = static_cast<int>(width);
  std::ostringstream s;
  s << std::left << std::setw(model_width) << "model" << std::setw(10) << "stage" << std::setw(22) << "registered"
    << std::setw(14) << "sha256" << std::setw(18) << "signed by"
    << "validation RMSE\n";
  for (const Entry& e : entries)
    s << std::setw(model_width) << e.reference() << std::setw(10) << stage_name(e.stage) << std::setw(22) << e.registered
      << std::setw(14) << e.sha256.substr(0, 12) << std::setw(18) << (e.signed_by.empty() ? "-" : e.signed_by)
      << rmse_text(e) << "\n";
  return terminal_text(s.str());
}

}  // namespace camber::nn::registry
