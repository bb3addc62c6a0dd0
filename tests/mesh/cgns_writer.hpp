// Small CGNS files for the reader tests, written with libcgns itself.
#pragma once

#include <gtest/gtest.h>

#include <cgnslib.h>

#include <cstdio>
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

// Writes `path` as an ADF file with one base, one unstructured zone, the
// given coordinates (x, y, z arrays) and sections, numbered from 1 in
// order; `n_cells` is the zone's declared cell count.
inline void write_cgns_file(const std::string& path, int cell_dim, const std::vector<double>& x,
                       const std::vector<double>& y, const std::vector<double>& z,
                       const std::vector<Section>& sections, cgsize_t n_cells) {
  std::remove(path.c_str());
  EXPECT_EQ(cg_set_file_type(CG_FILE_ADF), CG_OK);
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

}  // namespace camber_test_mesh
