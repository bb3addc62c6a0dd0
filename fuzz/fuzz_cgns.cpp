// The CGNS readers (mesh/cgns_reader.cpp, the serial one, and
// mesh/cgns_chunk_reader.cpp, the parallel one, on one rank) on files that
// are valid CGNS but say anything: read_cgns_data and read_cgns_chunk must
// both read a file or both throw camber::Error of kind bad_input, never
// crash, hang, leak or allocate what the file cannot hold; and what they
// read must be the same mesh (nodes, cells, and each marker's faces).
//
// fuzz_cgns (the default) is structure-aware: the bytes are decoded into a
// mesh description (base and zone dimensions, coordinates, element
// sections with their types, ranges and connectivity, ZoneBC point sets),
// mostly valid and now and then not, written with libcgns (ADF or HDF5),
// and then a few of the file's nodes are rewritten through libcgns's node
// layer (cgns_io.h: any node's type, dimensions and values, or the node
// deleted). So the bytes reach every check the readers make on sizes,
// ranges, connectivity and point sets without fuzzing HDF5's and ADF's own
// parsers, whose memory errors on corrupt files are not ours.
//
// With CAMBER_FUZZ_RAW (fuzz_cgns_file, run only when named) the bytes are
// the file itself, seeded with files libcgns wrote (make_cgns_seeds): that
// fuzzes HDF5's and ADF's parsers too (see docs/deployment.md).
#include <unistd.h>

#include <cgns_io.h>
#include <cgnslib.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <mpi.h>
#include <sanitizer/lsan_interface.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/cgns_reader.hpp>
#include <camber/mesh/mesh_chunk.hpp>

#ifndef CGNS_ENUMV
#define CGNS_ENUMV(e) e
#define CGNS_ENUMT(e) e
#endif

namespace {

namespace mesh = camber::mesh;
using camber::index_t;
std::string path;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_cgns: %s\n", what);
  std::abort();
}

// Runs a reader: true when it read the file, false when it threw
// bad_input; anything else aborts.
template <class Read>
bool reads(Read&& read, std::string& message) {
  try {
    read();
    return true;
  } catch (const camber::Error& e) {
    message = e.what();
    if (e.kind() != camber::ErrorKind::bad_input) {
      std::fprintf(stderr, "fuzz_cgns: not bad_input: %s\n", e.what());
      std::abort();
    }
    if (std::string(e.what()).find(path) == std::string::npos) {
      std::fprintf(stderr, "fuzz_cgns: the message does not name the file: %s\n", e.what());
      std::abort();
    }
    return false;
  }
}

// Both readers on `path`; they must agree.
void read_both() {
  mesh::MeshData d;
  mesh::MeshChunk c;
  std::string refused;
  const bool serial = reads([&] { d = mesh::read_cgns_data(path); }, refused);
  const bool chunk = reads([&] { c = mesh::read_cgns_chunk(path, MPI_COMM_SELF); }, refused);
  if (serial != chunk) {
    std::fprintf(stderr, "fuzz_cgns: only the %s reader read the file; the other said: %s\n",
                 serial ? "serial" : "chunk", refused.c_str());
    std::abort();
  }
  if (!serial) return;
  if (c.dim != d.dim || c.n_global_nodes != d.n_nodes() || c.coords != d.coords)
    fail("the readers read different nodes");
  if (c.n_global_cells != d.n_cells() || c.cell_types != d.cell_types ||
      c.cell_offsets != d.cell_offsets ||
      !std::equal(c.cell_nodes.begin(), c.cell_nodes.end(), d.cell_nodes.begin(), d.cell_nodes.end()))
    fail("the readers read different cells");
  if (c.marker_names.size() != d.markers.size()) fail("the readers read different markers");
  for (std::size_t m = 0; m < d.markers.size(); ++m) {
    if (c.marker_names[m] != d.markers[m].name) fail("the readers named markers differently");
    // The chunk's faces of marker m, in order (markers are interleaved).
    std::vector<index_t> offsets{0};
    std::vector<std::int64_t> nodes;
    for (std::size_t f = 0; f < c.face_marker.size(); ++f) {
      if (c.face_marker[f] != static_cast<int>(m)) continue;
      nodes.insert(nodes.end(), c.face_nodes.begin() + c.face_offsets[f],
                   c.face_nodes.begin() + c.face_offsets[f + 1]);
      offsets.push_back(static_cast<index_t>(nodes.size()));
    }
    const auto& dm = d.markers[m];
    if (offsets != dm.offsets || !std::equal(nodes.begin(), nodes.end(), dm.nodes.begin(), dm.nodes.end()))
      fail("the readers read different faces");
  }
}

#if !defined(CAMBER_FUZZ_RAW)

using ElementType = CGNS_ENUMT(ElementType_t);

cgsize_t clamped(std::int64_t v) {
  return static_cast<cgsize_t>(std::clamp<std::int64_t>(v, std::numeric_limits<cgsize_t>::min(),
                                                        std::numeric_limits<cgsize_t>::max()));
}

// Decodes the bytes; rare() is true about one time in 32 and false once the
// bytes run out, so that short inputs describe valid meshes.
struct Decoder {
  FuzzedDataProvider in;
  Decoder(const std::uint8_t* data, std::size_t size) : in(data, size) {}
  bool rare() { return in.ConsumeIntegralInRange<int>(0, 31) == 31; }
  int range(int lo, int hi) { return in.ConsumeIntegralInRange<int>(lo, hi); }
  // Mostly in lo..hi; rarely anything.
  cgsize_t index(int lo, int hi) {
    if (!rare()) return range(lo, hi);
    switch (range(0, 3)) {
      case 0: return range(lo - 3, hi + 3);
      case 1: return std::numeric_limits<cgsize_t>::max();
      case 2: return std::numeric_limits<cgsize_t>::min();
      default: return in.ConsumeIntegral<cgsize_t>();
    }
  }
  double coordinate() {
    if (!rare()) return 0.25 * range(-64, 64);
    switch (range(0, 2)) {
      case 0: return std::numeric_limits<double>::quiet_NaN();
      case 1: return -std::numeric_limits<double>::infinity();
      default: return in.ConsumeFloatingPoint<double>();
    }
  }
};

// The element types a section or a MIXED element takes: cells and faces
// of each dimension, then ones the readers refuse.
const ElementType cells2[] = {CGNS_ENUMV(TRI_3), CGNS_ENUMV(QUAD_4)};
const ElementType cells3[] = {CGNS_ENUMV(TETRA_4), CGNS_ENUMV(PYRA_5), CGNS_ENUMV(PENTA_6),
                              CGNS_ENUMV(HEXA_8)};
const ElementType others[] = {CGNS_ENUMV(NODE), CGNS_ENUMV(BAR_3), CGNS_ENUMV(TRI_6),
                              CGNS_ENUMV(HEXA_27), CGNS_ENUMV(NGON_n), CGNS_ENUMV(ElementTypeNull)};

ElementType element_type(Decoder& in, int dim) {
  if (in.rare()) return others[in.range(0, 5)];
  const bool face = in.in.ConsumeBool();
  const int d = face ? dim - 1 : dim;
  if (d <= 1) return CGNS_ENUMV(BAR_2);
  if (d == 2) return cells2[in.range(0, 1)];
  return cells3[in.range(0, 3)];
}

int nodes_of(ElementType t) {
  int npe = 0;
  if (t == CGNS_ENUMV(NGON_n) || cg_npe(t, &npe) != CG_OK || npe < 0) return 3;
  return npe;
}

int element_dim(ElementType t) {
  switch (t) {
    case CGNS_ENUMV(BAR_2): case CGNS_ENUMV(BAR_3): return 1;
    case CGNS_ENUMV(TRI_3): case CGNS_ENUMV(QUAD_4): case CGNS_ENUMV(TRI_6): return 2;
    case CGNS_ENUMV(NODE): case CGNS_ENUMV(ElementTypeNull): case CGNS_ENUMV(NGON_n): return 0;
    default: return 3;
  }
}

// Writes the described mesh; false when libcgns refuses (the input is then
// not read: libcgns writes only what it can read back).
bool write_mesh(Decoder& in) {
  // ADF mostly (much faster to write than HDF5); the readers see the same
  // tree through libcgns either way.
  cg_set_file_type(in.rare() ? CG_FILE_HDF5 : CG_FILE_ADF);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  int fn = -1;
  if (cg_open(path.c_str(), CG_MODE_WRITE, &fn) != CG_OK) fail(cg_get_error());
  struct Close {
    int fn;
    ~Close() { cg_close(fn); }
  } close{fn};
  const int n_bases = in.rare() ? in.range(0, 2) : 1;
  const int dim = in.rare() ? in.range(0, 4) : 2 + in.range(0, 1);
  const int phys = in.rare() ? in.range(0, 4) : 3;
  int base = 0;
  for (int b = 0; b < n_bases; ++b)
    if (cg_base_write(fn, b == 0 ? "Base" : "Other", dim, phys, &base) != CG_OK) return false;
  if (n_bases == 0) return true;
  base = 1;

  // Nodes: x, y (and z) in the plane z = const for a 2-D base.
  const int n_nodes = in.rare() ? in.range(0, 3) : in.range(1, 40);
  const bool z = dim != 2 || in.in.ConsumeBool();
  const int n_axes = in.rare() ? in.range(0, 3) : (z ? 3 : 2);
  std::vector<std::vector<double>> xyz(3, std::vector<double>(static_cast<std::size_t>(n_nodes)));
  for (int k = 0; k < n_axes; ++k)
    for (int i = 0; i < n_nodes; ++i)
      xyz[k][i] = (k == 2 && dim == 2 && !in.rare()) ? 1.5 : in.coordinate();

  // Sections: cells of the base's dimension and faces, numbered on from 1.
  struct Section {
    std::string name;
    ElementType type;
    cgsize_t first, last;
    std::vector<cgsize_t> conn, offsets{0};
  };
  std::vector<Section> sections(static_cast<std::size_t>(in.range(0, 4)));
  cgsize_t next = 1, n_cells = 0;
  const char* const names[] = {"wall", "farfield", "inlet", "cells"};
  for (std::size_t s = 0; s < sections.size(); ++s) {
    Section& sec = sections[s];
    sec.name = in.rare() ? names[in.range(0, 3)] : "S" + std::to_string(s);
    sec.type = in.rare() ? CGNS_ENUMV(MIXED) : element_type(in, dim);
    const int n = in.rare() ? in.range(0, 40) : in.range(1, 12);
    // libcgns writes as many elements as the range says from the arrays
    // it is given: a range that disagrees with them is made by the node
    // edits below, not here.
    sec.first = in.rare() ? in.index(-2, 80) : next;
    sec.last = clamped(std::int64_t{sec.first} + n - 1);
    next = clamped(std::int64_t{sec.first} + n);
    for (int e = 0; e < n; ++e) {
      ElementType t = sec.type;
      if (t == CGNS_ENUMV(MIXED)) {
        // libcgns sizes a MIXED element by its type code: a code with nodes
        // that do not match it, or one of no element, is made by the node
        // edits below.
        t = element_type(in, dim);
        if (t == CGNS_ENUMV(NGON_n) || t == CGNS_ENUMV(ElementTypeNull)) t = CGNS_ENUMV(NODE);
        sec.conn.push_back(t);
      }
      const int npe = nodes_of(t);
      if (sec.type == CGNS_ENUMV(NGON_n)) sec.conn.push_back(npe);
      for (int i = 0; i < npe; ++i) sec.conn.push_back(in.index(1, std::max(n_nodes, 1)));
      sec.offsets.push_back(static_cast<cgsize_t>(sec.conn.size()));
      if (element_dim(t) == dim) ++n_cells;
    }
  }

  const int n_zones = in.rare() ? in.range(0, 2) : 1;
  const bool structured = in.rare();
  cgsize_t sizes[9] = {n_nodes, in.rare() ? in.index(0, 80) : n_cells, 0, 1, 1, 0, 0, 0, 0};
  int zone = 0;
  for (int zn = 0; zn < n_zones; ++zn)
    if (cg_zone_write(fn, base, zn == 0 ? "blk" : "other", sizes,
                      structured ? CGNS_ENUMV(Structured) : CGNS_ENUMV(Unstructured), &zone) != CG_OK)
      return false;
  if (n_zones == 0) return true;
  zone = 1;
  // libcgns writes as many coordinates as the zone's vertex sizes say
  // (their product, for a structured zone): the arrays are padded to that.
  std::int64_t n_values = sizes[0];
  if (structured)
    for (int d = 1; d < std::min(dim, 3); ++d) n_values *= sizes[d];
  if (n_values < 0 || n_values > 4096) return false;
  for (auto& axis : xyz) axis.resize(static_cast<std::size_t>(std::max<std::int64_t>(n_values, n_nodes)), 0.0);
  const char* const axes[] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
  for (int k = 0; k < n_axes; ++k) {
    int c = 0;
    const char* name = in.rare() ? "CoordinateR" : axes[k];
    if (in.rare()) {
      const std::vector<float> single(xyz[k].begin(), xyz[k].end());
      if (cg_coord_write(fn, base, zone, CGNS_ENUMV(RealSingle), name, single.data(), &c) != CG_OK) return false;
    } else if (cg_coord_write(fn, base, zone, CGNS_ENUMV(RealDouble), name, xyz[k].data(), &c) != CG_OK) {
      return false;
    }
  }
  for (const Section& sec : sections) {
    if (std::int64_t{sec.last} - sec.first + 1 != static_cast<std::int64_t>(sec.offsets.size()) - 1)
      return false;  // the range was clamped
    int s = 0;
    const int status =
        sec.type == CGNS_ENUMV(MIXED) || sec.type == CGNS_ENUMV(NGON_n)
            ? cg_poly_section_write(fn, base, zone, sec.name.c_str(), sec.type, sec.first, sec.last,
                                    0, sec.conn.data(), sec.offsets.data(), &s)
            : cg_section_write(fn, base, zone, sec.name.c_str(), sec.type, sec.first, sec.last, 0,
                               sec.conn.data(), &s);
    if (status != CG_OK) return false;
  }

  // ZoneBC: node ranges and lists (at vertices), element ranges and lists
  // (at face centres), mostly naming what exists.
  const int n_bcs = in.range(0, 3);
  for (int b = 0; b < n_bcs; ++b) {
    const bool at_nodes = in.in.ConsumeBool();
    const bool is_range = in.in.ConsumeBool();
    CGNS_ENUMT(PointSetType_t) set = is_range ? CGNS_ENUMV(PointRange) : CGNS_ENUMV(PointList);
    if (in.rare()) set = is_range ? CGNS_ENUMV(ElementRange) : CGNS_ENUMV(ElementList);
    if (in.rare()) set = static_cast<CGNS_ENUMT(PointSetType_t)>(in.range(0, 8));
    const int hi = at_nodes ? n_nodes : static_cast<int>(next - 1);
    std::vector<cgsize_t> points(static_cast<std::size_t>(is_range ? 2 : in.range(1, 8)));
    for (cgsize_t& p : points) p = in.index(1, std::max(hi, 1));
    if (is_range && points[0] > points[1] && !in.rare()) std::swap(points[0], points[1]);
    // libcgns writes each point as index-dimension entries (the base's
    // cell dimension, up to 4 here, for a structured zone) and a range as
    // two points whatever the count: the array holds the most it reads.
    const auto n_points = static_cast<cgsize_t>(points.size());
    points.resize(4 * std::max<std::size_t>(points.size(), 2), points.front());
    int bc = 0;
    if (cg_boco_write(fn, base, zone, ("bc" + std::to_string(b)).c_str(), CGNS_ENUMV(BCWall), set,
                      n_points, points.data(), &bc) != CG_OK)
      return false;
    CGNS_ENUMT(GridLocation_t) where = at_nodes ? CGNS_ENUMV(Vertex) : CGNS_ENUMV(FaceCenter);
    if (in.rare()) where = static_cast<CGNS_ENUMT(GridLocation_t)>(in.range(0, 9));
    if (cg_boco_gridlocation_write(fn, base, zone, bc, where) != CG_OK) return false;
    // libcgns writes a normal per point of the set (every point of a
    // range, whatever the set type says) and physical dimension (at most
    // 4 here): the array covers the larger reading.
    std::int64_t n_set = static_cast<std::int64_t>(points.size());
    if (points.size() >= 2)
      n_set = std::max(n_set, std::abs(std::int64_t{points[1]} - points[0]) + 1);
    // (A reversed range gives libcgns a negative count to allocate.)
    if (in.rare() && n_set <= 4096 && !(points[1] < points[0])) {
      int normal_index[3] = {0, 0, 0};
      const std::vector<double> normals(static_cast<std::size_t>(n_set * 4), 1.0);
      if (cg_boco_normal_write(fn, base, zone, bc, normal_index, 1, CGNS_ENUMV(RealDouble),
                               normals.data()) != CG_OK)
        return false;
    }
  }
  return true;
}

// Rewrites a few nodes of the closed file through the node layer: a node's
// type, dimensions and values, or the node deleted.
void edit_nodes(Decoder& in) {
  const int n_edits = in.rare() ? in.range(1, 3) : in.range(0, 1) * in.range(0, 1);
  if (n_edits == 0) return;
  int cgio = -1;
  if (cgio_open_file(path.c_str(), CGIO_MODE_MODIFY, CGIO_FILE_NONE, &cgio) != CGIO_ERR_NONE)
    fail("cannot reopen the file");
  double root = 0;
  cgio_get_root_id(cgio, &root);
  for (int edit = 0; edit < n_edits; ++edit) {
    // Every node below the root, with its parent.
    std::vector<std::pair<double, double>> nodes;  // (node, parent)
    std::vector<double> todo{root};
    while (!todo.empty() && nodes.size() < 256) {
      const double parent = todo.back();
      todo.pop_back();
      int n = 0;
      if (cgio_number_children(cgio, parent, &n) != CGIO_ERR_NONE || n <= 0) continue;
      std::vector<double> ids(static_cast<std::size_t>(n));
      int got = 0;
      if (cgio_children_ids(cgio, parent, 1, n, &got, ids.data()) != CGIO_ERR_NONE) continue;
      for (int i = 0; i < got; ++i) {
        nodes.emplace_back(ids[i], parent);
        todo.push_back(ids[i]);
      }
    }
    if (nodes.empty()) break;
    const auto [node, parent] = nodes[static_cast<std::size_t>(in.range(0, static_cast<int>(nodes.size()) - 1))];
    if (in.rare()) {
      cgio_delete_node(cgio, parent, node);
      continue;
    }
    static const char* const types[] = {"I4", "I8", "R8", "C1"};
    const char* type = types[in.rare() ? in.range(1, 3) : 0];
    const int n_dims = in.range(1, 2);
    cgsize_t dims[2] = {in.range(1, 4), 1};
    if (n_dims == 2) dims[1] = in.range(1, 4);
    const std::size_t n = static_cast<std::size_t>(dims[0] * dims[1]);
    std::vector<std::int64_t> i8(n);
    std::vector<std::int32_t> i4(n);
    std::vector<double> r8(n);
    std::string c1(n, ' ');
    for (std::size_t i = 0; i < n; ++i) {
      i4[i] = in.index(-2, 64);
      i8[i] = i4[i];
      r8[i] = in.coordinate();
      c1[i] = static_cast<char>(in.range(32, 126));
    }
    const void* data = type[0] == 'C' ? static_cast<const void*>(c1.data())
                       : type[0] == 'R' ? static_cast<const void*>(r8.data())
                       : type[1] == '8' ? static_cast<const void*>(i8.data())
                                        : static_cast<const void*>(i4.data());
    if (cgio_set_dimensions(cgio, node, type, n_dims, dims) == CGIO_ERR_NONE)
      cgio_write_all_data(cgio, node, data);
  }
  cgio_close_file(cgio);
}

#endif  // !CAMBER_FUZZ_RAW

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // One rank: the chunk reader's collectives run on MPI_COMM_SELF. What
  // Open MPI allocates once, at start and in its first collectives, is no
  // leak of ours (it is freed by MPI_Finalize, which a fuzzer never
  // reaches).
  // Open MPI's handler of SIGABRT would end the process before libFuzzer's
  // writes the input that aborted.
  setenv("OMPI_MCA_opal_signal", "", 0);
  __lsan_disable();
  MPI_Init(argc, argv);
  int one = 1;
  MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
  MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, &one, 1, MPI_INT, MPI_COMM_SELF);
  __lsan_enable();
  // collective_guard prints each error it agrees on to std::cerr; the
  // fuzzer's own reports go to stderr through C stdio.
  std::cerr.rdbuf(nullptr);
  std::error_code ec;
  const std::filesystem::path dir =
      std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : std::filesystem::temp_directory_path();
  path = (dir / ("camber_fuzz_cgns_" + std::to_string(::getpid()) + ".cgns")).string();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
#if defined(CAMBER_FUZZ_RAW)
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
#else
  Decoder in(data, size);
  if (!write_mesh(in)) return 0;
  edit_nodes(in);
#endif
  read_both();
  return 0;
}
