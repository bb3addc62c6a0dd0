// Writes small valid CGNS meshes into a folder, each as an ADF and an
// HDF5 file: the seeds of fuzz_cgns_file, made by libcgns rather than kept
// as binaries in the tree. A 2-D mesh of quads and triangles with its
// boundary as BAR_2 sections and a 3-D mesh of hexahedra and prisms with
// a MIXED boundary section, each with a ZoneBC holding a node range, a
// node list and an element range and list.
#include <cgnslib.h>

#include <cstdio>
#include <string>
#include <vector>

#ifndef CGNS_ENUMV
#define CGNS_ENUMV(e) e
#define CGNS_ENUMT(e) e
#endif

namespace {

struct Section {
  const char* name;
  CGNS_ENUMT(ElementType_t) type;
  std::vector<cgsize_t> conn;  // MIXED: each element's type code, then its nodes
  cgsize_t n_elements;
};

struct Boco {
  const char* name;
  CGNS_ENUMT(PointSetType_t) set;
  CGNS_ENUMT(GridLocation_t) location;
  std::vector<cgsize_t> points;
};

bool ok(int status) {
  if (status != CG_OK) std::fprintf(stderr, "make_cgns_seeds: %s\n", cg_get_error());
  return status == CG_OK;
}

bool write(const std::string& path, int file_type, int dim, const std::vector<double> (&xyz)[3],
           cgsize_t n_cells, const std::vector<Section>& sections, const std::vector<Boco>& bcs) {
  int fn = 0, base = 0, zone = 0, c = 0;
  cg_set_file_type(file_type);
  if (!ok(cg_open(path.c_str(), CG_MODE_WRITE, &fn))) return false;
  cgsize_t sizes[3] = {static_cast<cgsize_t>(xyz[0].size()), n_cells, 0};
  bool good = ok(cg_base_write(fn, "Base", dim, 3, &base)) &&
              ok(cg_zone_write(fn, base, "blk", sizes, CGNS_ENUMV(Unstructured), &zone));
  const char* const axes[] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
  for (int k = 0; k < 3 && good; ++k)
    good = ok(cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), axes[k], xyz[k].data(), &c));
  cgsize_t next = 1;
  for (const Section& s : sections) {
    if (!good) break;
    int index = 0;
    if (s.type == CGNS_ENUMV(MIXED)) {
      std::vector<cgsize_t> offsets{0};
      for (std::size_t p = 0; p < s.conn.size();) {
        int npe = 0;
        cg_npe(static_cast<CGNS_ENUMT(ElementType_t)>(s.conn[p]), &npe);
        p += 1 + static_cast<std::size_t>(npe);
        offsets.push_back(static_cast<cgsize_t>(p));
      }
      good = ok(cg_poly_section_write(fn, base, zone, s.name, s.type, next, next + s.n_elements - 1,
                                      0, s.conn.data(), offsets.data(), &index));
    } else {
      good = ok(cg_section_write(fn, base, zone, s.name, s.type, next, next + s.n_elements - 1, 0,
                                 s.conn.data(), &index));
    }
    next += s.n_elements;
  }
  for (const Boco& b : bcs) {
    if (!good) break;
    int index = 0;
    good = ok(cg_boco_write(fn, base, zone, b.name, CGNS_ENUMV(BCWall), b.set,
                            static_cast<cgsize_t>(b.points.size()), b.points.data(), &index)) &&
           ok(cg_boco_gridlocation_write(fn, base, zone, index, b.location));
  }
  return ok(cg_close(fn)) && good;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_cgns_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  int n = 0;
  for (int file_type : {CG_FILE_ADF, CG_FILE_HDF5}) {
    const std::string kind = file_type == CG_FILE_ADF ? "adf" : "hdf5";
    // 2-D: nodes 1..6 on two rows (y = 0, 1), a quad and two triangles in
    // the plane z = 0.5; the boundary as two BAR_2 sections.
    const std::vector<double> xyz2[3] = {
        {0, 1, 2, 0, 1, 2}, {0, 0, 0, 1, 1, 1}, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5}};
    const std::vector<Section> s2 = {
        {"cells", CGNS_ENUMV(QUAD_4), {1, 2, 5, 4}, 1},
        {"tris", CGNS_ENUMV(TRI_3), {2, 3, 6, 2, 6, 5}, 2},
        {"wall", CGNS_ENUMV(BAR_2), {1, 2, 2, 3}, 2},
        {"farfield", CGNS_ENUMV(BAR_2), {3, 6, 6, 5, 5, 4, 4, 1}, 4}};
    const std::vector<Boco> b2 = {
        {"wall", CGNS_ENUMV(PointRange), CGNS_ENUMV(EdgeCenter), {4, 5}},
        {"far_nodes", CGNS_ENUMV(PointList), CGNS_ENUMV(Vertex), {3, 6, 5, 4}},
        {"bottom", CGNS_ENUMV(PointRange), CGNS_ENUMV(Vertex), {1, 3}},
        {"far", CGNS_ENUMV(PointList), CGNS_ENUMV(EdgeCenter), {6, 7, 8, 9}}};
    n += write(dir + "/quad_tri_" + kind + ".cgns", file_type, 2, xyz2, 3, s2, b2);
    // 3-D: a unit hex (nodes 1..8) and a prism on its top (nodes 5..8,
    // 9, 10); its faces as one MIXED section of quads and triangles.
    const std::vector<double> xyz3[3] = {{0, 1, 1, 0, 0, 1, 1, 0, 0, 1},
                                         {0, 0, 1, 1, 0, 0, 1, 1, 0.5, 0.5},
                                         {0, 0, 0, 0, 1, 1, 1, 1, 2, 2}};
    const int quad = CGNS_ENUMV(QUAD_4), tri = CGNS_ENUMV(TRI_3);
    const std::vector<Section> s3 = {
        {"hex", CGNS_ENUMV(HEXA_8), {1, 2, 3, 4, 5, 6, 7, 8}, 1},
        {"prism", CGNS_ENUMV(PENTA_6), {5, 6, 9, 8, 7, 10}, 1},
        {"bottom", CGNS_ENUMV(QUAD_4), {1, 4, 3, 2}, 1},
        {"sides", CGNS_ENUMV(MIXED),
         {quad, 1, 2, 6, 5, quad, 2, 3, 7, 6, tri, 5, 6, 9, tri, 8, 10, 7}, 4}};
    const std::vector<Boco> b3 = {
        {"bottom", CGNS_ENUMV(PointRange), CGNS_ENUMV(FaceCenter), {3, 3}},
        {"sides", CGNS_ENUMV(PointList), CGNS_ENUMV(FaceCenter), {4, 5, 6, 7}},
        {"top_nodes", CGNS_ENUMV(PointList), CGNS_ENUMV(Vertex), {9, 10}},
        {"all_nodes", CGNS_ENUMV(PointRange), CGNS_ENUMV(Vertex), {1, 10}}};
    n += write(dir + "/hex_prism_" + kind + ".cgns", file_type, 3, xyz3, 2, s3, b3);
  }
  std::printf("wrote %d seeds to %s\n", n, dir.c_str());
  return n == 4 ? 0 : 1;
}
