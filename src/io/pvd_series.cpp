#include <camber/io/pvd_series.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <utility>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include "detail/files.hpp"

namespace camber::io {

namespace {

// Shortest text that reads back as the same double.
std::string exact(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  for (int digits = 1; digits < 17; ++digits) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return text;
}

}  // namespace

PvdSeries::PvdSeries(std::string path, MPI_Comm comm) : path_(std::move(path)), comm_(comm) {
  CAMBER_REQUIRE(!path_.empty(), "PvdSeries: the .pvd path is empty");
}

void PvdSeries::add(double time, const std::string& relative_file) {
  CAMBER_REQUIRE(std::isfinite(time), "PvdSeries::add: time " << time << " is not finite");
  CAMBER_REQUIRE(!relative_file.empty(), "PvdSeries::add: the file name is empty");
  bool replaced = false;
  for (Entry& e : entries_) {
    if (e.time == time) {
      e.file = relative_file;
      replaced = true;
    }
  }
  if (!replaced) entries_.push_back({time, relative_file});
  const std::string text = xml();
  detail::on_rank0(comm_, [&] {
    write_file_atomically(path_, text);
  });
}

std::string PvdSeries::xml() const {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n"
     << "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
     << "  <Collection>\n";
  for (const Entry& e : entries_)
    os << "    <DataSet timestep=\"" << exact(e.time) << "\" group=\"\" part=\"0\" file=\""
       << detail::xml_escape(e.file) << "\"/>\n";
  os << "  </Collection>\n"
     << "</VTKFile>\n";
  return os.str();
}

std::string series_file_name(const std::string& base, long long index, int digits) {
  CAMBER_REQUIRE(index >= 0, "series_file_name: index " << index << " is negative");
  std::ostringstream os;
  os << base << "_" << std::setw(digits) << std::setfill('0') << index;
  return os.str();
}

}  // namespace camber::io
