#include "registry_commands.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/registry/registry.hpp>

namespace camber::app {

namespace reg = nn::registry;

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
std::string line_diff(const std::string& a, const std::string& b) {
  const std::vector<std::string> x = lines_of(a), y = lines_of(b);
  const size_t n = x.size(), m = y.size();
  std::vector<std::vector<int>> l(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      l[i][j] = x[i] == y[j] ? l[i + 1][j + 1] + 1 : std::max(l[i + 1][j], l[i][j + 1]);
  std::ostringstream out;
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

std::string rmse_text(const reg::Entry& e) {
  std::ostringstream s;
  s << std::setprecision(4);
  for (size_t k = 0; k < e.validation_rmse.size(); ++k)
    s << (k ? ", " : "") << (k < e.outputs.size() ? e.outputs[k] : "?") << " " << e.validation_rmse[k];
  return e.validation_rmse.empty() ? "-" : s.str();
}

std::string describe(const reg::Entry& e) {
  std::ostringstream s;
  s << e.reference() << "  (" << reg::stage_name(e.stage) << ")\n"
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
  return s.str();
}

std::string diff(const reg::Entry& a, const reg::Entry& b) {
  std::ostringstream s;
  s << a.reference() << " -> " << b.reference() << '\n';
  const auto field = [&](const char* name, const std::string& x, const std::string& y) {
    s << "  " << std::left << std::setw(14) << name << (x == y ? x + " (same)" : x + " -> " + y)
      << '\n';
  };
  field("stage", reg::stage_name(a.stage), reg::stage_name(b.stage));
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
  return s.str();
}

// NAME@VERSION, with the version required.
reg::Reference versioned(const std::string& text, const char* action) {
  const reg::Reference r = reg::parse_reference(text);
  CAMBER_INPUT_REQUIRE(r.version > 0, "models " << action << ": give NAME@VERSION, got '" << text
                                                << "'");
  return r;
}

}  // namespace

int command_models(const ModelsOptions& o, const Runtime& runtime) {
  std::string out;
  // The registry is a file: rank 0 works, every rank exits alike.
  collective_guard(runtime.comm(), [&] {
    if (runtime.rank() != 0) return;
    reg::Registry r(o.registry.empty() ? reg::Registry::default_root() : o.registry);
    std::ostringstream s;
    if (o.action == "register") {
      const reg::Entry e = r.register_model(o.first, o.name, reg::stage_from_name(o.stage));
      s << "registered " << e.reference() << " (" << reg::stage_name(e.stage) << "), sha256 "
        << e.sha256 << (e.signed_by.empty() ? ", unsigned" : ", signed by key " + e.signed_by)
        << "\n";
    } else if (o.action == "list") {
      const std::vector<reg::Entry> all = r.list(o.first);
      s << std::left << std::setw(24) << "model" << std::setw(10) << "stage" << std::setw(22)
        << "registered" << std::setw(14) << "sha256" << std::setw(18) << "signed by"
        << "validation RMSE\n";
      for (const reg::Entry& e : all)
        s << std::setw(24) << e.reference() << std::setw(10) << reg::stage_name(e.stage)
          << std::setw(22) << e.registered << std::setw(14) << e.sha256.substr(0, 12)
          << std::setw(18) << (e.signed_by.empty() ? "-" : e.signed_by) << rmse_text(e) << "\n";
      if (all.empty()) s << "(no models" << (o.first.empty() ? "" : " named " + o.first) << ")\n";
    } else if (o.action == "show") {
      s << describe(r.resolve(reg::parse_reference(o.first)));
    } else if (o.action == "promote") {
      const reg::Reference ref = versioned(o.first, "promote");
      const reg::Entry before = r.resolve(ref);
      const reg::Entry e = r.promote(ref.name, ref.version, reg::stage_from_name(o.second));
      s << "promoted " << e.reference() << ": " << reg::stage_name(before.stage) << " -> "
        << reg::stage_name(e.stage) << "\n";
    } else if (o.action == "diff") {
      s << diff(r.resolve(reg::parse_reference(o.first)), r.resolve(reg::parse_reference(o.second)));
    } else if (o.action == "remove") {
      const reg::Reference ref = versioned(o.first, "remove");
      r.remove(ref.name, ref.version);
      s << "removed " << ref.name << "@" << ref.version << "\n";
    } else {
      CAMBER_INPUT_REQUIRE(false, "models: unknown action '" << o.action << "'");
    }
    out = s.str();
  });
  if (runtime.rank() == 0) std::cout << out << std::flush;
  return 0;
}

}  // namespace camber::app
