#include <camber/optimization/history.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>

namespace camber::opt {

double Evaluation::max_violation() const {
  double v = 0.0;
  for (double g : inequality) v = std::max(v, g);
  for (double h : equality) v = std::max(v, std::abs(h));
  return v;
}

double Evaluation::gradient_norm() const {
  double s = 0.0;
  for (double d : objective_gradient) s += d * d;
  return std::sqrt(s);
}

namespace {

// The file format, one keyword per line, every value a C99 hexadecimal
// float (exact):
//   camber-optimization-history 1
//   entry ok                       or: entry failed <message>
//   x <n values>
//   f <value>                      (ok entries only, from here)
//   df <n values>
//   g <m_ineq values>
//   dg <n values>                  (m_ineq lines)
//   h <m_eq values>
//   dh <n values>                  (m_eq lines)
constexpr const char* kMagic = "camber-optimization-history 1";

void write_values(std::ostream& out, const char* key, const std::vector<double>& v) {
  out << key;
  char text[64];
  for (double d : v) {
    std::snprintf(text, sizeof text, " %a", d);
    out << text;
  }
  out << '\n';
}

class Reader {
 public:
  Reader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  History read() {
    History history;
    std::string line;
    if (!next(line) || line != kMagic)
      fail("expected the header line '" + std::string(kMagic) + "'");
    HistoryEntry* e = nullptr;
    while (next(line)) {
      std::istringstream words(line);
      std::string key;
      words >> key;
      if (key == "entry") {
        finish(e);
        std::string state;
        words >> state;
        history.emplace_back();
        e = &history.back();
        if (state == "failed") {
          e->failed = true;
          std::getline(words >> std::ws, e->failure);
        } else if (state != "ok") {
          fail("expected 'entry ok' or 'entry failed <message>', found '" + line + "'");
        }
        continue;
      }
      if (e == nullptr) fail("expected 'entry ok' or 'entry failed', found '" + line + "'");
      std::vector<double> v = values(words);
      Evaluation& ev = e->values;
      if (key == "x") {
        e->x = v;
        have_x_ = true;
      } else if (e->failed) {
        fail("a failed entry has only an x line, found '" + key + "'");
      } else if (key == "f") {
        if (v.size() != 1) fail("expected one value after 'f'");
        ev.objective = v[0];
        have_f_ = true;
      } else if (key == "df") {
        ev.objective_gradient = v;
      } else if (key == "g") {
        ev.inequality = v;
      } else if (key == "dg") {
        ev.inequality_gradients.push_back(v);
      } else if (key == "h") {
        ev.equality = v;
      } else if (key == "dh") {
        ev.equality_gradients.push_back(v);
      } else {
        fail("unknown key '" + key + "'; valid keys: entry, x, f, df, g, dg, h, dh");
      }
    }
    finish(e);
    return history;
  }

 private:
  bool next(std::string& line) {
    while (std::getline(in_, line)) {
      ++line_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") != std::string::npos) return true;
    }
    return false;
  }

  std::vector<double> values(std::istringstream& words) {
    std::vector<double> v;
    std::string word;
    while (words >> word) {
      char* end = nullptr;
      const double d = std::strtod(word.c_str(), &end);
      if (end == word.c_str() || *end != '\0') fail("expected a number, found '" + word + "'");
      v.push_back(d);
    }
    return v;
  }

  // Checks the sizes of the entry just read.
  void finish(const HistoryEntry* e) {
    if (e == nullptr) return;
    if (!have_x_) fail("the entry before this line has no x line");
    const size_t n = e->x.size();
    const Evaluation& ev = e->values;
    if (!e->failed) {
      if (!have_f_) fail("the entry before this line has no f line");
      auto rows_ok = [n](const std::vector<std::vector<double>>& rows) {
        return std::all_of(rows.begin(), rows.end(),
                           [n](const std::vector<double>& r) { return r.size() == n; });
      };
      if (ev.objective_gradient.size() != n || ev.inequality_gradients.size() != ev.inequality.size() ||
          ev.equality_gradients.size() != ev.equality.size() || !rows_ok(ev.inequality_gradients) ||
          !rows_ok(ev.equality_gradients))
        fail("the entry before this line has inconsistent sizes: expected " + std::to_string(n) +
             " values on its df, dg and dh lines, one dg line per g value and one dh line per "
             "h value");
    }
    have_x_ = have_f_ = false;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw_bad_input(source_ + ":" + std::to_string(line_) + ": " + what);
  }

  std::istream& in_;
  std::string source_;
  int line_ = 0;
  bool have_x_ = false;
  bool have_f_ = false;
};

}  // namespace

void write_history(std::ostream& out, const History& history) {
  out << kMagic << '\n';
  for (const HistoryEntry& e : history) {
    if (e.failed) {
      std::string why = e.failure;
      std::replace(why.begin(), why.end(), '\n', ' ');
      std::replace(why.begin(), why.end(), '\r', ' ');
      out << "entry failed " << why << '\n';
      write_values(out, "x", e.x);
      continue;
    }
    out << "entry ok\n";
    write_values(out, "x", e.x);
    const Evaluation& ev = e.values;
    write_values(out, "f", {ev.objective});
    write_values(out, "df", ev.objective_gradient);
    write_values(out, "g", ev.inequality);
    for (const auto& row : ev.inequality_gradients) write_values(out, "dg", row);
    write_values(out, "h", ev.equality);
    for (const auto& row : ev.equality_gradients) write_values(out, "dh", row);
  }
}

History read_history(std::istream& in, const std::string& source) {
  return Reader(in, source).read();
}

void save_history(const std::string& path, const History& history) {
  // A crash while writing leaves the previous history intact.
  write_file_atomically(path, [&](std::ostream& out) { write_history(out, history); });
}

History load_history(const std::string& path) {
  std::ifstream in(path);
  CAMBER_INPUT_REQUIRE(in, "cannot open optimization history '" << path << "'");
  return read_history(in, path);
}

}  // namespace camber::opt
