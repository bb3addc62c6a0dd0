// Helpers shared by the mesh tests: temporary files, bad-input checks, and
// the divergence-theorem area of a mesh.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <camber/mesh/geometry.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/core/error.hpp>

namespace camber_test_mesh {

inline std::string data_path(const std::string& name) {
  return std::string(CAMBER_MESH_TEST_DATA) + "/" + name;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

inline std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// Writes `text` to a file in GoogleTest's temporary folder; returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "camber_mesh_" + name;
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

// `text` with line `line_no` (1-based) replaced by `replacement`.
inline std::string replace_line(const std::string& text, int line_no, const std::string& replacement) {
  auto lines = lines_of(text);
  lines.at(line_no - 1) = replacement;
  return join(lines);
}

// The first `n` lines of `text`, then `tail` (no newline after it).
inline std::string truncate_lines(const std::string& text, int n, const std::string& tail = "") {
  auto lines = lines_of(text);
  lines.resize(n);
  return join(lines) + tail;
}

// `fn` must throw camber::Error of kind bad_input whose message contains
// every string in `parts` (typically "file:line:" and the expectation).
inline ::testing::AssertionResult throws_bad_input(const std::function<void()>& fn,
                                                   const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const camber::Error& e) {
    if (e.kind() != camber::ErrorKind::bad_input)
      return ::testing::AssertionFailure() << "error kind is failure, not bad_input: " << e.what();
    for (const auto& p : parts)
      if (e.message().find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks \"" << p << "\": " << e.message();
    return ::testing::AssertionSuccess() << e.message();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-camber exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// Area enclosed by the boundary, sum over boundary faces of x_mid * n_x
// (divergence theorem with F = (x, 0)): an independent check of the sum of
// cell volumes.
inline double boundary_area(const camber::mesh::Mesh& mesh, const camber::mesh::Geometry& g) {
  auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_right());
  auto center = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_center);
  auto normal = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_normal);
  double a = 0;
  for (std::size_t f = 0; f < right.extent(0); ++f)
    if (right(f) < 0) a += center(f, 0) * normal(f, 0);
  return a;
}

inline double total_volume(const camber::mesh::Geometry& g) {
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);
  double s = 0;
  for (std::size_t c = 0; c < v.extent(0); ++c) s += v(c);
  return s;
}

// Largest |sum of outward face normals| / sum of face areas over all cells.
inline double max_closure_error(const camber::mesh::Mesh& mesh, const camber::mesh::Geometry& g) {
  auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_left());
  auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_right());
  auto normal = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_normal);
  auto area = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_area);
  const std::size_t nc = static_cast<std::size_t>(mesh.n_cells());
  std::vector<double> sx(nc, 0.0), sy(nc, 0.0), sa(nc, 0.0);
  for (std::size_t f = 0; f < left.extent(0); ++f) {
    sx[left(f)] += normal(f, 0);
    sy[left(f)] += normal(f, 1);
    sa[left(f)] += area(f);
    if (right(f) >= 0) {
      sx[right(f)] -= normal(f, 0);
      sy[right(f)] -= normal(f, 1);
      sa[right(f)] += area(f);
    }
  }
  double worst = 0;
  for (std::size_t c = 0; c < nc; ++c)
    worst = std::max(worst, std::hypot(sx[c], sy[c]) / sa[c]);
  return worst;
}

}  // namespace camber_test_mesh
