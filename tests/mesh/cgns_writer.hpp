// Small CGNS files for the reader tests, written with libcgns itself.
#pragma once

#include <gtest/gtest.h>

#include <cgns_io.h>
#include <cgnslib.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#ifndef CGNS_ENUMV
#define CGNS_ENUMV(e) e
#define CGNS_ENUMT(e) e
#endif

namespace camber_test_mesh {

// One section to write: name, type, connectivity (1-based; MIXED: each
// element's type code, then its nodes; NGON_n: each face's node count,
// then its nodes), number of elements.
struct Section {
  std::string name;
  CGNS_ENUMT(ElementType_t) type;
  std::vector<cgsize_t> conn;
  cgsize_t n_elements;
};

// Writes `path` as an ADF file (or `file_type`, e.g. CG_FILE_HDF5) with
// one base, one unstructured zone, the given coordinates (x, y, z arrays)
// and sections, numbered from 1 in order; `n_cells` is the zone's declared
// cell count.
inline void write_cgns_file(const std::string& path, int cell_dim, const std::vector<double>& x,
                       const std::vector<double>& y, const std::vector<double>& z,
                       const std::vector<Section>& sections, cgsize_t n_cells,
                       int file_type = CG_FILE_ADF) {
  std::remove(path.c_str());
  EXPECT_EQ(cg_set_file_type(file_type), CG_OK);
  int fn = 0, base = 0, zone = 0, coord = 0;
  EXPECT_EQ(cg_open(path.c_str(), CG_MODE_WRITE, &fn), CG_OK) << cg_get_error();
  EXPECT_EQ(cg_base_write(fn, "Base", cell_dim, 3, &base), CG_OK);
  cgsize_t sizes[3] = {static_cast<cgsize_t>(x.size()), n_cells, 0};
  EXPECT_EQ(cg_zone_write(fn, base, "blk", sizes, CGNS_ENUMV(Unstructured), &zone), CG_OK);
  EXPECT_EQ(cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateX", x.data(), &coord), CG_OK);
  EXPECT_EQ(cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateY", y.data(), &coord), CG_OK);
  EXPECT_EQ(cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), "CoordinateZ", z.data(), &coord), CG_OK);
  cgsize_t next = 1;
  for (const Section& s : sections) {
    int index = 0;
    if (s.type == CGNS_ENUMV(MIXED) || s.type == CGNS_ENUMV(NGON_n)) {
      // Offsets of each element's entries: a type code and its nodes
      // (MIXED), or a count and its nodes (NGON_n).
      std::vector<cgsize_t> offsets{0};
      for (std::size_t p = 0; p < s.conn.size();) {
        int npe = static_cast<int>(s.conn[p]);
        if (s.type == CGNS_ENUMV(MIXED)) cg_npe(static_cast<CGNS_ENUMT(ElementType_t)>(s.conn[p]), &npe);
        p += 1 + static_cast<std::size_t>(npe);
        offsets.push_back(static_cast<cgsize_t>(p));
      }
      EXPECT_EQ(cg_poly_section_write(fn, base, zone, s.name.c_str(), s.type, next,
                                      next + s.n_elements - 1, 0, s.conn.data(), offsets.data(), &index),
                CG_OK)
          << cg_get_error();
    } else {
      EXPECT_EQ(cg_section_write(fn, base, zone, s.name.c_str(), s.type, next,
                                 next + s.n_elements - 1, 0, s.conn.data(), &index),
                CG_OK)
          << cg_get_error();
    }
    next += s.n_elements;
  }
  EXPECT_EQ(cg_close(fn), CG_OK);
}

// Opens `path` through the node-level library (the mid-level one would
// refuse a file whose zone and arrays already disagree), finds the node at
// `node_path` (names from the root) and calls edit(cgio, node), which says
// whether it succeeded.
inline ::testing::AssertionResult edit_cgns_node(const std::string& path,
                                                 const std::vector<std::string>& node_path,
                                                 const std::function<bool(int, double)>& edit) {
  int cgio = 0;
  double node = 0;
  if (cgio_open_file(path.c_str(), CGIO_MODE_MODIFY, CGIO_FILE_NONE, &cgio) != CGIO_ERR_NONE)
    return ::testing::AssertionFailure() << "cannot open " << path;
  bool ok = cgio_get_root_id(cgio, &node) == CGIO_ERR_NONE;
  for (const std::string& name : node_path)
    ok = ok && cgio_get_node_id(cgio, node, name.c_str(), &node) == CGIO_ERR_NONE;
  ok = ok && edit(cgio, node);
  cgio_close_file(cgio);
  if (!ok) return ::testing::AssertionFailure() << "cannot edit a node of " << path;
  return ::testing::AssertionSuccess();
}

// Overwrites the integers of the node at `node_path` (e.g. {"Base", "blk"}
// for the zone's sizes, {"Base", "blk", "cells", "ElementRange"}) with
// `values`, as many as the node holds: a file whose declarations disagree
// with its arrays, as a careless or hostile edit leaves it.
inline ::testing::AssertionResult overwrite_cgns_ints(const std::string& path,
                                                      const std::vector<std::string>& node_path,
                                                      const std::vector<cgsize_t>& values) {
  return edit_cgns_node(path, node_path, [&](int cgio, double node) {
    int n_dims = 0;
    cgsize_t dims[CGIO_MAX_DIMENSIONS] = {0};
    if (cgio_get_dimensions(cgio, node, &n_dims, dims) != CGIO_ERR_NONE) return false;
    cgsize_t n = 1;
    for (int d = 0; d < n_dims; ++d) n *= dims[d];
    return n == static_cast<cgsize_t>(values.size()) &&
           cgio_write_all_data(cgio, node, values.data()) == CGIO_ERR_NONE;
  });
}

// Declares the node at `node_path` an array of `n` entries of its type,
// its data dropped: what a file claiming more than it holds looks like to
// a reader that trusts the declaration.
inline ::testing::AssertionResult declare_cgns_length(const std::string& path,
                                                      const std::vector<std::string>& node_path,
                                                      cgsize_t n) {
  return edit_cgns_node(path, node_path, [&](int cgio, double node) {
    char type[CGIO_MAX_DATATYPE_LENGTH + 1] = {0};
    return cgio_get_data_type(cgio, node, type) == CGIO_ERR_NONE &&
           cgio_set_dimensions(cgio, node, type, 1, &n) == CGIO_ERR_NONE;
  });
}

// Adds a wall boundary condition `name` to the zone of `path`: a point set
// of the given type at `location` (Vertex: node numbers; FaceCenter:
// element numbers).
inline void write_cgns_bc(const std::string& path, const std::string& name,
                          CGNS_ENUMT(PointSetType_t) set, CGNS_ENUMT(GridLocation_t) location,
                          const std::vector<cgsize_t>& points) {
  int fn = 0, bc = 0;
  ASSERT_EQ(cg_open(path.c_str(), CG_MODE_MODIFY, &fn), CG_OK) << cg_get_error();
  EXPECT_EQ(cg_boco_write(fn, 1, 1, name.c_str(), CGNS_ENUMV(BCWall), set,
                          static_cast<cgsize_t>(points.size()), points.data(), &bc),
            CG_OK)
      << cg_get_error();
  EXPECT_EQ(cg_boco_gridlocation_write(fn, 1, 1, bc, location), CG_OK) << cg_get_error();
  EXPECT_EQ(cg_close(fn), CG_OK);
}

}  // namespace camber_test_mesh
