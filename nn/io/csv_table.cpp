#include "csv_table.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::nn::io {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The fields of one line as RFC 4180 reads them: a field in double quotes
// keeps its commas and blanks ("" inside is one quote); other fields are
// trimmed.
std::vector<std::string> split_fields(const std::string& line, const std::string& where) {
  std::vector<std::string> cells;
  size_t at = 0;
  while (true) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    std::string cell;
    if (at < line.size() && line[at] == '"') {
      for (++at;; ++at) {
        CAMBER_INPUT_REQUIRE(at < line.size(), where << ": a quoted field is not closed");
        if (line[at] != '"') {
          cell += line[at];
        } else if (at + 1 < line.size() && line[at + 1] == '"') {
          cell += '"';
          ++at;
        } else {
          break;
        }
      }
      ++at;
      while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == '\r')) ++at;
      CAMBER_INPUT_REQUIRE(at == line.size() || line[at] == ',',
                           where << ": text after the closing quote of '" << cell << "'");
    } else {
      const size_t comma = line.find(',', at);
      cell = trim(line.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      at = comma == std::string::npos ? line.size() : comma;
    }
    cells.push_back(cell);
    if (at >= line.size()) break;
    ++at;  // past the comma
  }
  return cells;
}

// A field as RFC 4180 writes it: in double quotes, its quotes doubled, when
// it holds a comma, a quote or a line break, or would be read otherwise
// unquoted (blanks at an end, a leading '#').
std::string csv_field(const std::string& s) {
  const bool quote = s.find_first_of(",\"\r\n") != std::string::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' ' || s.front() == '\t' ||
                                     s.back() == '\t' || s.front() == '#'));
  if (!quote) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string header_cell(const Columns& c, size_t k) {
  return csv_field(c.names[k] + (c.units[k].empty() ? "" : " [" + c.units[k] + "]"));
}

}  // namespace

Tensor read_input_csv(const std::string& path, const Columns& want) {
  std::ifstream in(path);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot open '" << path << "'");
  const size_t n_in = want.names.size();
  std::vector<size_t> column_of;  // header cell -> model input
  std::vector<double> values;
  std::string line;
  long lineno = 0, rows = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const std::vector<std::string> cells = split_fields(t, path + ":" + std::to_string(lineno));
    if (!header) {
      header = true;
      std::vector<int> seen(n_in, 0);
      for (const std::string& cell : cells) {
        std::string name = cell, unit;
        // A name may hold brackets itself: a cell that is a name is that
        // name; else its unit is in the last brackets.
        bool is_name = false;
        for (const std::string& n : want.names) is_name = is_name || n == cell;
        const size_t open = is_name ? std::string::npos : cell.rfind('[');
        if (open != std::string::npos) {
          CAMBER_INPUT_REQUIRE(cell.back() == ']', path << ":" << lineno << ": column '" << cell
                                                        << "': write a unit as 'name [unit]'");
          name = trim(cell.substr(0, open));
          unit = trim(cell.substr(open + 1, cell.size() - open - 2));
        }
        size_t k = 0;
        while (k < n_in && want.names[k] != name) ++k;
        std::string list;
        for (const std::string& n : want.names) list += (list.empty() ? "" : ", ") + n;
        CAMBER_INPUT_REQUIRE(k < n_in, path << ":" << lineno << ": column '" << name
                                            << "' is not an input of the model (" << list << ")");
        CAMBER_INPUT_REQUIRE(++seen[k] == 1, path << ":" << lineno << ": column '" << name
                                                  << "' appears twice");
        CAMBER_INPUT_REQUIRE(open == std::string::npos || unit == want.units[k],
                             path << ":" << lineno << ": column '" << name << "' in '" << unit
                                  << "', the model's unit is '" << want.units[k] << "'");
        column_of.push_back(k);
      }
      for (size_t k = 0; k < n_in; ++k)
        CAMBER_INPUT_REQUIRE(seen[k] == 1, path << ":" << lineno << ": no column '"
                                                << want.names[k] << "' (an input of the model)");
      continue;
    }
    CAMBER_INPUT_REQUIRE(cells.size() == n_in, path << ":" << lineno << ": " << cells.size()
                                                    << " values, the header has " << n_in);
    std::vector<double> row(n_in);
    for (size_t c = 0; c < cells.size(); ++c) {
      char* end = nullptr;
      const double v = std::strtod(cells[c].c_str(), &end);
      CAMBER_INPUT_REQUIRE(!cells[c].empty() && end == cells[c].c_str() + cells[c].size() &&
                               std::isfinite(v),
                           path << ":" << lineno << ": '" << cells[c] << "' in column '"
                                << want.names[column_of[c]] << "' is not a finite number");
      row[column_of[c]] = v;
    }
    values.insert(values.end(), row.begin(), row.end());
    ++rows;
  }
  CAMBER_INPUT_REQUIRE(header, path << ": empty (a header naming the inputs is needed)");
  return Tensor::from_host({static_cast<index_t>(rows), static_cast<index_t>(n_in)}, values);
}

void write_rows_csv(const std::string& path, const Tensor& x, const Tensor& y, const Columns& inputs,
                    const Columns& outputs, MPI_Comm comm) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  const index_t n_in = x.dim(1), n_out = y.dim(1);
  std::vector<double> mine;
  const std::vector<double> xv = x.to(DType::float64).to_vector(), yv = y.to(DType::float64).to_vector();
  for (index_t r = 0; r < x.dim(0); ++r) {
    mine.insert(mine.end(), xv.begin() + r * n_in, xv.begin() + (r + 1) * n_in);
    mine.insert(mine.end(), yv.begin() + r * n_out, yv.begin() + (r + 1) * n_out);
  }
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size), 0);
  CAMBER_CHECK_MPI(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(rank == 0 ? static_cast<size_t>(displs.back() + counts.back()) : 0);
  CAMBER_CHECK_MPI(MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(),
                               displs.data(), MPI_DOUBLE, 0, comm));
  collective_guard(comm, [&] {
    if (rank != 0) return;
    if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path());
    std::ostringstream out;
    for (index_t k = 0; k < n_in; ++k) out << (k ? "," : "") << header_cell(inputs, static_cast<size_t>(k));
    for (index_t k = 0; k < n_out; ++k) out << "," << header_cell(outputs, static_cast<size_t>(k));
    out << "\n" << std::setprecision(17);
    const size_t w = static_cast<size_t>(n_in + n_out);
    for (size_t i = 0; i < all.size(); i += w) {
      for (size_t k = 0; k < w; ++k) out << (k ? "," : "") << all[i + k];
      out << "\n";
    }
    write_file_atomically(path, out.str());
  });
}

}  // namespace camber::nn::io
