#include <camber/io/vtk_writer.hpp>

#include <vtkCallbackCommand.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCommand.h>
#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkIdTypeArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPPolyDataWriter.h>
#include <vtkXMLPUnstructuredGridWriter.h>
#include <vtkXMLPolyDataWriter.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <system_error>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include "detail/files.hpp"
#include <camber/core/runtime.hpp>

namespace camber::io {

namespace fs = std::filesystem;

namespace {

// Node count of the fixed-size cell types; 0 for the others.
int nodes_of(std::uint8_t type) {
  switch (type) {
    case vtk_cell::vertex: return 1;
    case vtk_cell::line: return 2;
    case vtk_cell::triangle: return 3;
    case vtk_cell::quad: return 4;
    case vtk_cell::tetra: return 4;
    case vtk_cell::hexahedron: return 8;
    case vtk_cell::wedge: return 6;
    case vtk_cell::pyramid: return 5;
    default: return 0;
  }
}

void validate_fields(const std::vector<Field>& fields, std::int64_t n, const char* kind) {
  std::set<std::string> names;
  for (const Field& f : fields) {
    CAMBER_REQUIRE(!f.name.empty(), kind << " field with an empty name; name it with its units, "
                                            "e.g. \"Temperature [K]\"");
    CAMBER_REQUIRE(f.name.find_first_of("\"<>&") == std::string::npos,
                   kind << " field name '" << f.name
                        << "' contains one of \" < > &, which VTK's XML cannot hold");
    CAMBER_REQUIRE(names.insert(f.name).second,
                   "two " << kind << " fields are named '" << f.name << "'");
    CAMBER_REQUIRE(f.components >= 1,
                   kind << " field '" << f.name << "' has " << f.components << " components");
    CAMBER_REQUIRE(static_cast<std::int64_t>(f.values.size()) == n * f.components,
                   kind << " field '" << f.name << "' has " << f.values.size()
                        << " values, expected " << n << " " << kind << "s x " << f.components
                        << " components = " << n * f.components);
  }
}

// "<kind>:<name>:<components>" per field, for checking that ranks agree.
std::string field_signature(const UnstructuredPiece& piece) {
  std::ostringstream os;
  for (const Field& f : piece.cell_data) os << "cell:" << f.name << ":" << f.components << "\n";
  for (const Field& f : piece.point_data) os << "point:" << f.name << ":" << f.components << "\n";
  return os.str();
}

std::string broadcast_from_rank0(const std::string& text, MPI_Comm comm) {
  long long length = static_cast<long long>(text.size());
  CAMBER_CHECK_MPI(MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm));
  std::string result = text;
  result.resize(static_cast<std::size_t>(length));
  if (length > 0)
    CAMBER_CHECK_MPI(MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, 0, comm));
  return result;
}

vtkSmartPointer<vtkDoubleArray> to_vtk(const Field& field, std::int64_t n) {
  auto array = vtkSmartPointer<vtkDoubleArray>::New();
  array->SetName(field.name.c_str());
  array->SetNumberOfComponents(field.components);
  array->SetNumberOfTuples(n);
  std::copy(field.values.begin(), field.values.end(), array->GetPointer(0));
  return array;
}

// Copies the piece into a VTK grid (VTK owns its arrays; the piece is not
// referenced afterwards).
vtkSmartPointer<vtkUnstructuredGrid> to_vtk(const UnstructuredPiece& piece) {
  const std::int64_t n_points = piece.n_points();
  const std::int64_t n_cells = piece.n_cells();
  auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();

  vtkNew<vtkDoubleArray> coordinates;
  coordinates->SetNumberOfComponents(3);
  coordinates->SetNumberOfTuples(n_points);
  std::copy(piece.points_xyz.begin(), piece.points_xyz.end(), coordinates->GetPointer(0));
  vtkNew<vtkPoints> points;
  points->SetData(coordinates);
  grid->SetPoints(points);

  // vtkCellArray's offsets start with 0 and have one entry per cell more.
  vtkNew<vtkIdTypeArray> offsets;
  offsets->SetNumberOfValues(n_cells + 1);
  offsets->SetValue(0, 0);
  for (std::int64_t c = 0; c < n_cells; ++c)
    offsets->SetValue(c + 1, static_cast<vtkIdType>(piece.offsets[static_cast<std::size_t>(c)]));
  vtkNew<vtkIdTypeArray> connectivity;
  connectivity->SetNumberOfValues(static_cast<vtkIdType>(piece.connectivity.size()));
  std::copy(piece.connectivity.begin(), piece.connectivity.end(), connectivity->GetPointer(0));
  vtkNew<vtkCellArray> cells;
  cells->SetData(offsets, connectivity);
  vtkNew<vtkUnsignedCharArray> types;
  types->SetNumberOfValues(n_cells);
  std::copy(piece.cell_types.begin(), piece.cell_types.end(), types->GetPointer(0));
  grid->SetCells(types, cells);

  for (const Field& f : piece.cell_data) grid->GetCellData()->AddArray(to_vtk(f, n_cells));
  for (const Field& f : piece.point_data) grid->GetPointData()->AddArray(to_vtk(f, n_points));
  return grid;
}

// Collects VTK's error and warning messages from one object, instead of
// VTK printing them to the terminal.
class VtkMessages {
 public:
  explicit VtkMessages(vtkObject* object) {
    observer_->SetCallback(&VtkMessages::collect);
    observer_->SetClientData(this);
    object->AddObserver(vtkCommand::ErrorEvent, observer_);
    object->AddObserver(vtkCommand::WarningEvent, observer_);
  }
  std::string text() const { return text_.empty() ? "no message from VTK" : text_; }

 private:
  static void collect(vtkObject*, unsigned long, void* client, void* call_data) {
    auto* self = static_cast<VtkMessages*>(client);
    if (call_data == nullptr) return;
    std::string message = static_cast<const char*>(call_data);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    if (!self->text_.empty()) self->text_ += "; ";
    self->text_ += message;
  }

  vtkNew<vtkCallbackCommand> observer_;
  std::string text_;
};

void configure(vtkXMLWriter* writer) {
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();  // raw binary, not base64
  writer->SetCompressorTypeToZLib();
  writer->SetHeaderTypeToUInt64();  // pieces over 4 GiB
}

// Writes `data` to "<path>.tmp" with a new Writer (a vtkXML*Writer), then
// renames it to `path`.
template <class Writer>
void write_xml_file(vtkDataObject* data, const fs::path& path) {
  const fs::path tmp = temporary_path(path);
  vtkNew<Writer> writer;
  configure(writer);
  writer->SetInputData(data);
  writer->SetFileName(tmp.c_str());
  VtkMessages messages(writer);
  const int ok = writer->Write();
  const unsigned long code = writer->GetErrorCode();
  if (ok != 1 || code != vtkErrorCode::NoError) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    CAMBER_REQUIRE(false, "VTK could not write '"
                              << path.string() << "': "
                              << (code != vtkErrorCode::NoError
                                      ? std::string(vtkErrorCode::GetStringFromErrorCode(code)) +
                                            ": "
                                      : std::string())
                              << messages.text());
  }
  commit_file(tmp, path);
}

// VTK's parallel writer (vtkXMLPUnstructuredGridWriter or
// vtkXMLPPolyDataWriter), reduced to its summary (.pvtu, .pvtp) part: the
// pieces are written by their own ranks beforehand, and which ones exist is
// gathered by Camber rather than by a VTK controller. That keeps every piece
// atomic and lets a failed piece end in a camber::Error on all ranks instead
// of a hang in VTK's reduction.
template <class ParallelWriter>
class SummaryWriter : public ParallelWriter {
 public:
  // What vtkStandardNewMacro expands to (it does not take templates).
  static SummaryWriter* New() {
    auto* writer = new SummaryWriter;
    writer->InitializeObjectBase();
    return writer;
  }

  void set_pieces_written(std::vector<unsigned char> written) { written_ = std::move(written); }

 protected:
  SummaryWriter() = default;
  ~SummaryWriter() override = default;

  int WritePiece(int) override { return 1; }
  void PrepareSummaryFile() override {
    const std::size_t n =
        std::min(written_.size(), static_cast<std::size_t>(this->NumberOfPieces));
    std::copy_n(written_.begin(), n, this->PieceWrittenFlags);
  }

 private:
  std::vector<unsigned char> written_;
};

// "<path>" with `extension` (".pvtu") appended unless it ends with it.
fs::path summary_path(const std::string& path, const char* extension, const char* who) {
  CAMBER_REQUIRE(!path.empty(), who << ": the output path is empty");
  fs::path summary(path);
  if (summary.extension() != extension) summary += extension;
  return summary;
}

// The collective part of write_pvtu and write_pvtp: agree on path and
// fields, write this rank's piece with PieceWriter as
// <base>/<base>_<rank><piece_extension>, then the summary on rank 0.
template <class PieceWriter, class ParallelWriter>
std::string write_parallel(const fs::path& summary, const char* piece_extension,
                           const char* who, const UnstructuredPiece& piece,
                           const std::function<void()>& validate_piece,
                           const std::function<vtkSmartPointer<vtkDataObject>()>& to_data,
                           MPI_Comm comm) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  const std::string base = summary.stem().string();
  const fs::path folder = summary.parent_path() / base;
  // The name VTK's summary gives piece r (vtkXMLPDataObjectWriter with
  // UseSubdirectory): "<base>/<base>_<r>.vtu" next to the .pvtu.
  const fs::path piece_path = folder / (base + "_" + std::to_string(rank) + piece_extension);

  const std::string signature = summary.string() + "\n" + field_signature(piece);
  const std::string rank0_signature = broadcast_from_rank0(signature, comm);
  collective_guard(comm, [&] {
    validate_piece();
    CAMBER_REQUIRE(signature == rank0_signature,
                   who << ": rank " << rank << " passed path and fields\n"
                       << signature << "but rank 0 passed\n"
                       << rank0_signature
                       << "every rank must pass the same path and fields "
                          "(names, components, order)");
    if (rank == 0) {
      std::error_code ec;
      fs::create_directories(folder, ec);
      CAMBER_REQUIRE(!ec, who << ": cannot create directory '" << folder.string()
                              << "': " << ec.message());
    }
  });

  const bool has_piece = piece.n_points() > 0 || piece.n_cells() > 0;
  const vtkSmartPointer<vtkDataObject> data = to_data();  // valid on every rank now
  collective_guard(comm, [&] {
    if (has_piece) write_xml_file<PieceWriter>(data, piece_path);
  });

  unsigned char written = has_piece ? 1 : 0;
  std::vector<unsigned char> all_written(rank == 0 ? static_cast<std::size_t>(size) : 0);
  CAMBER_CHECK_MPI(MPI_Gather(&written, 1, MPI_UNSIGNED_CHAR, all_written.data(), 1,
                              MPI_UNSIGNED_CHAR, 0, comm));

  detail::on_rank0(comm, [&] {
    vtkNew<SummaryWriter<ParallelWriter>> writer;
    configure(writer);
    writer->SetController(nullptr);  // rank 0 alone; pieces gathered above
    writer->SetInputData(data);      // array names and types for the summary
    writer->SetNumberOfPieces(size);
    writer->SetStartPiece(0);
    writer->SetEndPiece(0);
    writer->SetUseSubdirectory(true);
    writer->set_pieces_written(all_written);
    writer->SetFileName(summary.c_str());  // piece names derive from it
    writer->WriteToOutputStringOn();
    VtkMessages messages(writer);
    CAMBER_REQUIRE(writer->Write() == 1 && writer->GetErrorCode() == vtkErrorCode::NoError,
                   "VTK could not write the summary '" << summary.string()
                                                       << "': " << messages.text());
    write_file_atomically(summary, writer->GetOutputString());
  });
  return summary.string();
}

// Which vtkPolyData cell array holds a cell type: 0 vertices, 1 lines,
// 2 polygons; -1 for types PolyData cannot hold.
int polydata_group(std::uint8_t type) {
  switch (type) {
    case vtk_cell::vertex: return 0;
    case vtk_cell::line: return 1;
    case vtk_cell::triangle:
    case vtk_cell::quad:
    case vtk_cell::polygon: return 2;
    default: return -1;
  }
}

// Copies the surface into a VTK PolyData, cells grouped as VTK stores them
// (vertices, lines, polygons; stable within a group), cell fields to match.
vtkSmartPointer<vtkPolyData> to_vtk(const SurfacePiece& surface) {
  const std::int64_t n_points = surface.n_points();
  const std::int64_t n_cells = surface.n_cells();
  auto poly = vtkSmartPointer<vtkPolyData>::New();

  vtkNew<vtkDoubleArray> coordinates;
  coordinates->SetNumberOfComponents(3);
  coordinates->SetNumberOfTuples(n_points);
  std::copy(surface.points_xyz.begin(), surface.points_xyz.end(), coordinates->GetPointer(0));
  vtkNew<vtkPoints> points;
  points->SetData(coordinates);
  poly->SetPoints(points);

  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(n_cells));
  vtkNew<vtkCellArray> groups[3];
  for (int group = 0; group < 3; ++group) {
    for (std::int64_t c = 0; c < n_cells; ++c) {
      if (polydata_group(surface.cell_types[static_cast<std::size_t>(c)]) != group) continue;
      const std::int64_t begin = c == 0 ? 0 : surface.offsets[static_cast<std::size_t>(c) - 1];
      const std::int64_t end = surface.offsets[static_cast<std::size_t>(c)];
      groups[group]->InsertNextCell(static_cast<vtkIdType>(end - begin));
      for (std::int64_t k = begin; k < end; ++k)
        groups[group]->InsertCellPoint(
            static_cast<vtkIdType>(surface.connectivity[static_cast<std::size_t>(k)]));
      order.push_back(c);
    }
  }
  poly->SetVerts(groups[0]);
  poly->SetLines(groups[1]);
  poly->SetPolys(groups[2]);

  for (const Field& f : surface.cell_data) {
    Field reordered{f.name, f.components, {}};
    reordered.values.reserve(f.values.size());
    for (std::int64_t c : order) {
      const auto begin = f.values.begin() + c * f.components;
      reordered.values.insert(reordered.values.end(), begin, begin + f.components);
    }
    poly->GetCellData()->AddArray(to_vtk(reordered, n_cells));
  }
  for (const Field& f : surface.point_data) poly->GetPointData()->AddArray(to_vtk(f, n_points));
  return poly;
}

}  // namespace

void validate(const UnstructuredPiece& piece) {
  CAMBER_REQUIRE(piece.points_xyz.size() % 3 == 0,
                 "UnstructuredPiece: points_xyz has " << piece.points_xyz.size()
                                                      << " values, not 3 per point");
  const std::int64_t n_points = piece.n_points();
  const std::int64_t n_cells = piece.n_cells();
  CAMBER_REQUIRE(static_cast<std::int64_t>(piece.offsets.size()) == n_cells,
                 "UnstructuredPiece: " << n_cells << " cell types but " << piece.offsets.size()
                                       << " offsets; give one of each per cell");
  std::int64_t begin = 0;
  for (std::int64_t c = 0; c < n_cells; ++c) {
    const std::int64_t end = piece.offsets[static_cast<std::size_t>(c)];
    CAMBER_REQUIRE(end >= begin && end <= static_cast<std::int64_t>(piece.connectivity.size()),
                   "UnstructuredPiece: offsets[" << c << "] = " << end
                                                 << " is not in [" << begin << ", "
                                                 << piece.connectivity.size()
                                                 << "]; offsets are the end of each cell in "
                                                    "connectivity, non-decreasing");
    const std::uint8_t type = piece.cell_types[static_cast<std::size_t>(c)];
    const int expected = nodes_of(type);
    CAMBER_REQUIRE(expected == 0 || end - begin == expected,
                   "UnstructuredPiece: cell " << c << " of VTK type " << int(type) << " has "
                                              << end - begin << " nodes, expected "
                                              << expected);
    begin = end;
  }
  CAMBER_REQUIRE(begin == static_cast<std::int64_t>(piece.connectivity.size()),
                 "UnstructuredPiece: the last offset is "
                     << begin << " but connectivity has " << piece.connectivity.size()
                     << " entries");
  for (std::size_t i = 0; i < piece.connectivity.size(); ++i) {
    const std::int64_t id = piece.connectivity[i];
    CAMBER_REQUIRE(id >= 0 && id < n_points, "UnstructuredPiece: connectivity["
                                                 << i << "] = " << id
                                                 << " is not a point id in [0, " << n_points
                                                 << ")");
  }
  validate_fields(piece.cell_data, n_cells, "cell");
  validate_fields(piece.point_data, n_points, "point");
}

std::string write_vtu(const std::string& path, const UnstructuredPiece& piece) {
  CAMBER_REQUIRE(!path.empty(), "write_vtu: the output path is empty");
  validate(piece);
  create_parent_directories(path);
  auto grid = to_vtk(piece);
  write_xml_file<vtkXMLUnstructuredGridWriter>(grid, path);
  return path;
}

std::string write_pvtu(const std::string& path, const UnstructuredPiece& piece,
                       MPI_Comm comm) {
  const fs::path summary = summary_path(path, ".pvtu", "write_pvtu");
  return write_parallel<vtkXMLUnstructuredGridWriter, vtkXMLPUnstructuredGridWriter>(
      summary, ".vtu", "write_pvtu", piece, [&] { validate(piece); },
      [&]() -> vtkSmartPointer<vtkDataObject> { return to_vtk(piece); }, comm);
}

void validate(const SurfacePiece& surface) {
  // The cell types first: a volume cell is the likelier mistake than a
  // wrong node count, and says more.
  for (std::size_t c = 0; c < surface.cell_types.size(); ++c) {
    const std::uint8_t type = surface.cell_types[c];
    CAMBER_REQUIRE(polydata_group(type) >= 0,
                   "SurfacePiece: cell " << c << " has VTK type " << int(type)
                                         << "; a surface holds only vertices (1), lines (3), "
                                            "triangles (5), polygons (7) and quads (9)");
  }
  validate(static_cast<const UnstructuredPiece&>(surface));
}

std::string write_vtp(const std::string& path, const SurfacePiece& surface) {
  CAMBER_REQUIRE(!path.empty(), "write_vtp: the output path is empty");
  validate(surface);
  create_parent_directories(path);
  auto poly = to_vtk(surface);
  write_xml_file<vtkXMLPolyDataWriter>(poly, path);
  return path;
}

std::string write_pvtp(const std::string& path, const SurfacePiece& surface, MPI_Comm comm) {
  const fs::path summary = summary_path(path, ".pvtp", "write_pvtp");
  return write_parallel<vtkXMLPolyDataWriter, vtkXMLPPolyDataWriter>(
      summary, ".vtp", "write_pvtp", surface, [&] { validate(surface); },
      [&]() -> vtkSmartPointer<vtkDataObject> { return to_vtk(surface); }, comm);
}

}  // namespace camber::io
