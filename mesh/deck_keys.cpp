#include "deck_keys.hpp"

#include <filesystem>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::mesh {

using deck::IntRange;
using deck::Keys;
using deck::Range;

const Keys<AirfoilGridSettings>& airfoil_grid_keys() {
  using S = AirfoilGridSettings;
  static const Keys<S> keys =
      Keys<S>()
          .string("naca", &S::naca, "NACA 4-digit designation of the airfoil (e.g. 0012, 2412).")
          .string("airfoil_file", &S::airfoil_file,
                  "airfoil_ogrid: a Selig-format .dat file of the airfoil, instead of mesh.naca "
                  "(relative to the deck's folder).")
          .boolean("sharp_trailing_edge", &S::sharp_trailing_edge,
                   "Close the trailing edge (the ADODG modification of the NACA thickness law).")
          .integer("cells_around", &S::cells_around, IntRange(16, 1 << 16), "Cells around the airfoil.")
          .integer("cells_normal", &S::cells_normal, IntRange(4, 1 << 16),
                   "Cells from the wall to the far field.")
          .real("first_cell_height", &S::first_cell_height, Range(1e-8, 0.1),
                "Height of the first cell at the wall, in chords.")
          .real("farfield_chords", &S::farfield_chords, Range(2.0, 1e4),
                "Far-field radius, in chords from the airfoil.")
          .integer("cells", &S::cells, IntRange(16, 1 << 14),
                   "karman_trefftz_ogrid: N, the cells around and from the wall out (even).")
          .choice("cell_shape", &S::cell_shape, cell_shape_names,
                  "Generated O-grids: quads, or each quad split into two triangles (the same "
                  "nodes).");
  return keys;
}

AirfoilGridSettings read_airfoil_grid(const deck::Deck& d, const std::string& section,
                                      AirfoilGridKind kind) {
  AirfoilGridSettings g = airfoil_grid_keys().read(d, section);
  g.kind = kind;
  if (!g.airfoil_file.empty()) g.airfoil_file = deck::deck_relative_path(d, g.airfoil_file);
  return g;
}

void validate_airfoil_grid_keys(const deck::Deck& d, const std::string& section,
                                AirfoilGridKind kind) {
  const std::string at = section + ".";
  if (d.has(at + "airfoil_file") && (d.has(at + "naca") || d.has(at + "sharp_trailing_edge")))
    d.reject(d.has(at + "naca") ? at + "naca" : at + "sharp_trailing_edge",
             "the airfoil comes from " + at + "airfoil_file, so this would be ignored; remove it");
  // The keys each generator would ignore.
  std::vector<std::string> foreign;
  switch (kind) {
    case AirfoilGridKind::airfoil_ogrid: foreign = {"cells"}; break;
    case AirfoilGridKind::conformal_ogrid: foreign = {"cells", "first_cell_height"}; break;
    case AirfoilGridKind::karman_trefftz_ogrid:
      foreign = {"naca", "airfoil_file", "sharp_trailing_edge", "cells_around", "cells_normal",
                 "first_cell_height", "farfield_chords"};
      break;
  }
  const std::string name(enum_name(airfoil_grid_kind_names, kind));
  for (const std::string& key : foreign)
    if (d.has(at + key))
      d.reject(at + key, "does not shape a '" + name + "' mesh, so it would be ignored; remove it");
  validate_airfoil_grid(read_airfoil_grid(d, section, kind),
                        [&](const std::string& member, const std::string& what) {
                          d.reject(at + member, what);
                        });
}

namespace {

// generate names both the source's kind and, for a grid, the grid's kind.
const char* const generate_file = "file";

std::string generate_name(const MeshSource& s) {
  return s.kind == MeshSourceKind::file ? generate_file
                                        : std::string(enum_name(airfoil_grid_kind_names, s.grid.kind));
}

}  // namespace

const Keys<MeshSource>& mesh_source_keys() {
  using S = MeshSource;
  static const Keys<S> keys =
      Keys<S>()
          .custom(
              "generate",
              [](deck::Section& sec, const S& d) {
                std::vector<std::string> names = enum_names(airfoil_grid_kind_names);
                names.push_back(generate_file);
                sec.choice(
                    "generate", generate_name(d), names,
                    "airfoil_ogrid: a structured O-grid around a NACA 4-digit airfoil, chord 1 "
                    "(markers airfoil, farfield), layers extruded from the wall. conformal_ogrid: "
                    "the Karman-Trefftz construction around any airfoil with a sharp trailing edge "
                    "(mesh.naca or mesh.airfoil_file; near-square cells when cells_normal = "
                    "cells_around at about 150 chords; same markers). karman_trefftz_ogrid: "
                    "Vassberg and Jameson's cells x cells O-grid around the NACA 0012 closed at x = "
                    "1.0089 (the paper's constants, far field ~150 chords). file: read mesh.file.");
              },
              [](const deck::Deck& d, const std::string& path, S& s) {
                const std::string name = d.string(path);
                s.kind = name == generate_file ? MeshSourceKind::file : MeshSourceKind::generated;
                if (s.kind == MeshSourceKind::generated)
                  s.grid.kind = enum_from_name(airfoil_grid_kind_names, name, path);
              })
          .string("file", &S::file,
                  "Mesh file (.su2, .msh or .cgns, by extension) when generate is file; a relative "
                  "path is relative to the deck's folder.")
          .nested(&S::grid, airfoil_grid_keys());
  return keys;
}

deck::Keys<MeshSource> rectangle_source_keys(const std::string& boundary_note,
                                             const std::string& length_note) {
  using S = MeshSource;
  using R = RectangleSettings;
  const auto length = [&](char axis) {
    std::string note = length_note;
    const auto at = note.find("{}");
    if (at != std::string::npos) note.replace(at, 2, std::string(1, axis));
    return std::string("Domain length along ") + axis + ", in metres (rectangle)" + note + ".";
  };
  const std::string generate_help =
      "rectangle: [0, length_x_m] x [0, length_y_m] in cells_x x cells_y uniform quadrilaterals "
      "(markers left, right, bottom, top). file: read mesh.file. " +
      boundary_note + " The cells are partitioned over the MPI ranks.";
  return Keys<S>()
      .custom(
          "generate",
          [generate_help](deck::Section& sec, const S& d) {
            sec.choice("generate", d.kind == MeshSourceKind::file ? generate_file : "rectangle",
                       {"rectangle", generate_file}, generate_help);
          },
          [](const deck::Deck& d, const std::string& path, S& s) {
            s.kind = d.string(path) == generate_file ? MeshSourceKind::file : MeshSourceKind::rectangle;
          })
      .string("file", &S::file,
              "Mesh file (.su2, .msh or .cgns, by extension) when generate is file; a relative path "
              "is relative to the deck's folder. Every boundary face needs a marker. The "
              "two-point flux is exact only on orthogonal meshes (a warning says when a mesh "
              "is not).")
      .nested_copy(&S::rectangle,
                   Keys<R>()
                       .integer("cells_x", &R::cells_x, IntRange(2, 1 << 20), "Cells along x (rectangle).")
                       .integer("cells_y", &R::cells_y, IntRange(2, 1 << 20), "Cells along y (rectangle).")
                       .real("length_x_m", &R::length_x_m, Range::positive(), length('x'))
                       .real("length_y_m", &R::length_y_m, Range::positive(), length('y')));
}

MeshSource read_rectangle_source(const deck::Deck& d, const std::string& section) {
  MeshSource s = rectangle_source_keys().read(d, section);
  if (s.kind == MeshSourceKind::file && !s.file.empty()) s.file = deck::deck_relative_path(d, s.file);
  return s;
}

void validate_rectangle_source_keys(const deck::Deck& d, const std::string& section) {
  validate_mesh_file_keys(d, section, {"cells_x", "cells_y"});
}

MeshSource read_mesh_source(const deck::Deck& d, const std::string& section) {
  MeshSource s = mesh_source_keys().read(d, section);
  if (s.kind == MeshSourceKind::generated) s.grid = read_airfoil_grid(d, section, s.grid.kind);
  else if (!s.file.empty()) s.file = deck::deck_relative_path(d, s.file);
  return s;
}

void validate_mesh_file_keys(const deck::Deck& d, const std::string& section,
                             const std::vector<std::string>& generator_keys) {
  const std::string at = section + ".";
  if (d.string(at + "generate") != generate_file) {
    if (d.has(at + "file"))
      d.reject(at + "file", "names a mesh file, but " + at + "generate is '" +
                                d.string(at + "generate") +
                                (d.has(at + "generate") ? "'" : "' (its default)") +
                                ", so the file would be ignored; write 'generate: file' to "
                                "read it");
    return;
  }
  if (d.string(at + "file").empty())
    d.reject(at + "file", at + "generate is file, so " + at +
                              "file must name a .su2, .msh or .cgns file");
  for (const std::string& key : generator_keys)
    if (d.has(at + key))
      d.reject(at + key, "only shapes a generated mesh, and " + at +
                             "generate is file, so it would be ignored; remove it");
}

void validate_mesh_source_keys(const deck::Deck& d, const std::string& section) {
  validate_mesh_file_keys(d, section, airfoil_grid_keys().names());
  const MeshSource s = read_mesh_source(d, section);
  if (s.kind == MeshSourceKind::generated) validate_airfoil_grid_keys(d, section, s.grid.kind);
}

void require_cells_for_ranks(const deck::Deck& d, const std::string& key, std::int64_t n_cells,
                             MPI_Comm comm) {
  const int n_ranks = comm_size(comm);
  if (n_cells < n_ranks)
    d.reject(key, CAMBER_MSG("the mesh has " << n_cells << " cells for " << n_ranks
                                             << " ranks; every rank needs at least one cell: "
                                                "refine the mesh or run on fewer ranks"));
}

MeshChunk build_mesh_chunk(const deck::Deck& d, const std::string& section, const MeshSource& s,
                           MPI_Comm comm, int max_dim, const std::string& what) {
  const std::string file_key = section + ".file";
  const MeshSourceReject reject = [&](const std::string& member, const std::string& why) {
    // The grid's and the rectangle's members are keys of the section itself.
    const auto dot = member.find('.');
    d.reject(section + "." + (dot == std::string::npos ? member : member.substr(dot + 1)), why);
  };
  if (s.kind == MeshSourceKind::file)
    collective_guard(comm, [&] {
      if (!std::filesystem::exists(s.file))
        d.reject(file_key, "cannot find '" + s.file + "' (relative paths start at the deck's folder)");
    });
  MeshChunk chunk = build_mesh_chunk(s, comm, reject);
  if (s.kind == MeshSourceKind::file)
    collective_guard(comm, [&] {
      // Every rank holds the same dimension and count, so every rank rejects alike.
      if (chunk.dim > max_dim)
        d.reject(file_key, "'" + s.file + "' is a 3-D mesh; " + what +
                               " works on 2-D meshes so far (camber mesh-info reads and reports "
                               "3-D meshes)");
      require_cells_for_ranks(d, file_key, chunk.n_global_cells, comm);
    });
  if (s.kind == MeshSourceKind::rectangle)
    collective_guard(comm, [&] {
      require_cells_for_ranks(d, section + ".cells_x", chunk.n_global_cells, comm);
    });
  return chunk;
}

}  // namespace camber::mesh
