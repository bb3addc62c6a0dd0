#include <camber/io/hdf5_file.hpp>

#include <hdf5.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include "detail/files.hpp"
#include "detail/hdf5_check.hpp"
#include <camber/core/runtime.hpp>

namespace camber::io {

namespace fs = std::filesystem;
using detail::Hid;

RowBlock even_row_block(index_t n_rows, int rank, int n_ranks) {
  CAMBER_REQUIRE(n_rows >= 0 && n_ranks > 0 && rank >= 0 && rank < n_ranks,
                 "even_row_block: need n_rows >= 0 and 0 <= rank < n_ranks, got n_rows = "
                     << n_rows << ", rank = " << rank << ", n_ranks = " << n_ranks);
  const index_t base = n_rows / n_ranks;
  const index_t extra = n_rows % n_ranks;
  RowBlock block;
  block.count = base + (rank < extra ? 1 : 0);
  block.offset = rank * base + std::min<index_t>(rank, extra);
  return block;
}

namespace {

// "fields/temperature", "/fields/temperature" -> "/fields/temperature";
// "" and "/" -> "/" (the root group).
std::string absolute_object_path(const std::string& name) {
  std::string path = name;
  while (!path.empty() && path.front() == '/') path.erase(path.begin());
  if (path.empty()) return "/";
  std::istringstream parts(path);
  std::string part;
  bool valid = path.back() != '/';
  while (valid && std::getline(parts, part, '/'))
    valid = !part.empty() && part != "." && part != "..";
  CAMBER_INPUT_REQUIRE(valid, "invalid HDF5 object name '"
                                  << name
                                  << "': use a path of names separated by single "
                                     "slashes, e.g. 'fields/temperature'");
  return "/" + path;
}

// The type of the object at an absolute path (H5I_GROUP, H5I_DATASET, ...),
// or H5I_BADID if there is none. Walks the path so that a missing group on
// the way is "not found", not an HDF5 error.
H5I_type_t object_type(hid_t file, const std::string& path) {
  if (path == "/") return H5I_GROUP;
  std::string::size_type end = 0;
  while (true) {
    end = path.find('/', end + 1);
    const std::string prefix = path.substr(0, end);
    if (CAMBER_CHECK_HDF5(H5Lexists(file, prefix.c_str(), H5P_DEFAULT)) <= 0)
      return H5I_BADID;
    Hid object(CAMBER_CHECK_HDF5(H5Oopen(file, prefix.c_str(), H5P_DEFAULT)), H5Oclose);
    const H5I_type_t type = CAMBER_CHECK_HDF5(H5Iget_type(object.get()));
    if (end == std::string::npos) return type;
    if (type != H5I_GROUP) return H5I_BADID;
  }
}

// H5Lvisit callback. It runs inside HDF5's C code, which an exception must
// not cross: plain status checks here, not CAMBER_CHECK_HDF5.
herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t* info,
                       void* client) {
  if (info->type != H5L_TYPE_HARD) return 0;
  const hid_t object = H5Oopen(group, name, H5P_DEFAULT);
  if (object < 0) return 0;  // only used to improve an error message
  if (H5Iget_type(object) == H5I_DATASET)
    static_cast<std::vector<std::string>*>(client)->push_back(name);
  H5Oclose(object);
  return 0;
}

// Up to `limit` dataset names, for error messages.
std::string dataset_list(hid_t file, std::size_t limit = 12) {
  std::vector<std::string> names;
  CAMBER_CHECK_HDF5(H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &names));
  if (names.empty()) return "the file has no datasets";
  std::ostringstream os;
  os << "datasets in the file: ";
  for (std::size_t i = 0; i < names.size() && i < limit; ++i)
    os << (i > 0 ? ", " : "") << names[i];
  if (names.size() > limit) os << ", ... (" << names.size() << " in all)";
  return os.str();
}

std::vector<hsize_t> to_hsize(const Shape& shape) {
  return std::vector<hsize_t>(shape.begin(), shape.end());
}

Hid make_space(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return Hid(CAMBER_CHECK_HDF5(H5Screate(H5S_SCALAR)), H5Sclose);
  return Hid(CAMBER_CHECK_HDF5(H5Screate_simple(static_cast<int>(dims.size()),
                                                dims.data(), nullptr)),
             H5Sclose);
}

Hid collective_transfer() {
  Hid dxpl(CAMBER_CHECK_HDF5(H5Pcreate(H5P_DATASET_XFER)), H5Pclose);
  CAMBER_CHECK_HDF5(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE));
  return dxpl;
}

// A host pointer for HDF5 even when a tensor has no elements (HDF5 rejects
// a null buffer although it reads nothing from it).
double* nonnull(double* data) {
  static double dummy = 0.0;
  return data != nullptr ? data : &dummy;
}

// A tensor's shape in a fixed-size array for one broadcast: its rank, then
// its extents padded with -1.
using ShapeRecord = std::array<std::int64_t, 1 + max_tensor_rank>;

ShapeRecord shape_record(const Tensor& t) {
  ShapeRecord r;
  r.fill(-1);
  r[0] = t.rank();
  for (int a = 0; a < t.rank(); ++a) r[static_cast<std::size_t>(a) + 1] = t.dim(a);
  return r;
}

std::string shape_string(const ShapeRecord& r) {
  return camber::shape_string(Shape(r.begin() + 1, r.begin() + 1 + r[0]));
}


}  // namespace

// ---------------------------------------------------------------------------

struct H5File::Impl {
  std::string path;       // final path
  std::string open_path;  // the file HDF5 has open ("<path>.tmp" in create mode)
  Mode mode = Mode::read;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  hid_t file = H5I_INVALID_HID;
  int uncaught_at_open = 0;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  // Runs rank-local checks; every rank throws the lowest failing rank's error.
  void agree(const std::function<void()>& body) const { collective_guard(comm, body); }

  std::string where() const { return "HDF5 file '" + path + "'"; }

  void require_open(const char* operation) const {
    CAMBER_REQUIRE(file >= 0, "H5File::" << operation << ": " << where()
                                         << " is already closed");
  }
  void require_writable(const char* operation) const {
    require_open(operation);
    CAMBER_REQUIRE(mode == Mode::create,
                   "H5File::" << operation << ": " << where()
                              << " was opened with Mode::read; open a new file "
                                 "with Mode::create to write");
  }

  // Checks that `name` is a dataset; returns its absolute path.
  std::string require_dataset(const char* operation, const std::string& name) const {
    require_open(operation);
    const std::string abs = absolute_object_path(name);
    const H5I_type_t type = object_type(file, abs);
    CAMBER_INPUT_REQUIRE(type != H5I_BADID, where() << " has no dataset '" << name
                                                    << "' (" << dataset_list(file) << ")");
    CAMBER_INPUT_REQUIRE(type == H5I_DATASET,
                         "'" << name << "' in " << where() << " is a group, not a dataset ("
                             << dataset_list(file) << ")");
    return abs;
  }

  std::string require_object(const char* operation, const std::string& object) const {
    require_open(operation);
    const std::string abs = absolute_object_path(object);
    CAMBER_INPUT_REQUIRE(object_type(file, abs) != H5I_BADID,
                         where() << " has no group or dataset '" << object << "' ("
                                 << dataset_list(file) << ")");
    return abs;
  }

  Shape dataset_shape(hid_t dataset, const std::string& name) const {
    Hid space(CAMBER_CHECK_HDF5(H5Dget_space(dataset)), H5Sclose);
    const int ndims = CAMBER_CHECK_HDF5(H5Sget_simple_extent_ndims(space.get()));
    CAMBER_INPUT_REQUIRE(ndims <= max_tensor_rank,
                         "dataset '" << name << "' in " << where() << " has " << ndims
                                     << " axes; a Tensor has at most " << max_tensor_rank);
    std::vector<hsize_t> dims(static_cast<std::size_t>(ndims));
    if (ndims > 0)
      CAMBER_CHECK_HDF5(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr));
    Hid type(CAMBER_CHECK_HDF5(H5Dget_type(dataset)), H5Tclose);
    const H5T_class_t type_class = CAMBER_CHECK_HDF5(H5Tget_class(type.get()));
    CAMBER_INPUT_REQUIRE(type_class == H5T_FLOAT || type_class == H5T_INTEGER,
                         "dataset '" << name << "' in " << where()
                                     << " does not hold numbers; a Tensor reads "
                                        "floating-point or integer data");
    return Shape(dims.begin(), dims.end());
  }

  // Agrees that every rank's tensor has rank 0's rank and extents (beyond
  // axis 0 when `distributed`, which also needs at least one axis).
  void require_consistent_blocks(const char* operation, const std::string& name,
                                 const Tensor& local, bool distributed) const {
    const ShapeRecord mine = shape_record(local);
    ShapeRecord first = mine;
    CAMBER_CHECK_MPI(MPI_Bcast(first.data(), static_cast<int>(first.size()), MPI_INT64_T, 0,
                               comm));
    agree([&] {
      require_writable(operation);
      if (distributed)
        CAMBER_REQUIRE(local.rank() >= 1,
                       "H5File::write('" << name << "'): a distributed tensor needs at "
                                            "least one axis (its rows); use "
                                            "write_replicated for a scalar");
      bool same = mine[0] == first[0];
      for (std::size_t k = distributed ? 2 : 1; same && k < mine.size(); ++k)
        same = mine[k] == first[k];
      CAMBER_REQUIRE(same, "H5File::" << operation << "('" << name << "'): rank " << rank
                                      << " holds a tensor of shape " << shape_string(mine)
                                      << " but rank 0 one of shape " << shape_string(first)
                                      << (distributed
                                              ? "; every rank must pass the same shape "
                                                "except for the number of rows"
                                              : "; every rank must pass the same tensor"));
    });
  }

  Hid create_dataset(const std::string& abs, const std::vector<hsize_t>& dims) const {
    Hid space = make_space(dims);
    Hid lcpl(CAMBER_CHECK_HDF5(H5Pcreate(H5P_LINK_CREATE)), H5Pclose);
    CAMBER_CHECK_HDF5(H5Pset_create_intermediate_group(lcpl.get(), 1));
    Hid dcpl(CAMBER_CHECK_HDF5(H5Pcreate(H5P_DATASET_CREATE)), H5Pclose);
    // Every element is written right away: skip the fill pass.
    CAMBER_CHECK_HDF5(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER));
    return Hid(CAMBER_CHECK_HDF5(H5Dcreate2(file, abs.c_str(), H5T_IEEE_F64LE, space.get(),
                                            lcpl.get(), dcpl.get(), H5P_DEFAULT)),
               H5Dclose);
  }

  // Collective write of `local` into rows [row_offset, row_offset + rows of
  // local) of a new dataset of shape `global`; `selected` false writes
  // nothing from this rank.
  void write_block(const std::string& abs, const Shape& global, const Tensor& local,
                   index_t row_offset, bool selected) const {
    Hid dataset = create_dataset(abs, to_hsize(global));
    // A dataset with no elements has no storage (its address is undefined):
    // a collective write of nothing fails inside MPI-IO, so skip it. Every
    // rank knows the global shape, so all skip together.
    if (shape_size(global) == 0) {
      dataset.close();
      return;
    }
    Hid file_space(CAMBER_CHECK_HDF5(H5Dget_space(dataset.get())), H5Sclose);
    Hid memory_space = make_space(to_hsize(local.shape()));
    if (!selected || local.size() == 0) {
      CAMBER_CHECK_HDF5(H5Sselect_none(file_space.get()));
      CAMBER_CHECK_HDF5(H5Sselect_none(memory_space.get()));
    } else if (!global.empty()) {
      std::vector<hsize_t> start(global.size(), 0);
      std::vector<hsize_t> count = to_hsize(local.shape());
      start[0] = static_cast<hsize_t>(row_offset);
      CAMBER_CHECK_HDF5(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(),
                                            nullptr, count.data(), nullptr));
    }
    const Tensor::HostView host = local.host();
    Hid dxpl = collective_transfer();
    CAMBER_CHECK_HDF5(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, memory_space.get(),
                               file_space.get(), dxpl.get(), nonnull(host.data())));
    dataset.close();
  }

  // Collective read of rows [row_offset, row_offset + row_count) (all of a
  // rank-0 dataset when `whole`).
  Tensor read_rows(const std::string& abs, const Shape& global, index_t row_offset,
                   index_t row_count, bool whole) const {
    Shape local_shape = global;
    if (!whole) local_shape[0] = row_count;
    Tensor result(local_shape, "camber::io::H5File::read");
    auto host = Kokkos::create_mirror_view(result.view());
    // Nothing stored (see write_block): every rank skips the collective read.
    if (shape_size(global) == 0) return result;
    Hid dataset(CAMBER_CHECK_HDF5(H5Dopen2(file, abs.c_str(), H5P_DEFAULT)), H5Dclose);
    Hid file_space(CAMBER_CHECK_HDF5(H5Dget_space(dataset.get())), H5Sclose);
    Hid memory_space = make_space(to_hsize(local_shape));
    if (result.size() == 0) {
      CAMBER_CHECK_HDF5(H5Sselect_none(file_space.get()));
      CAMBER_CHECK_HDF5(H5Sselect_none(memory_space.get()));
    } else if (!whole) {
      std::vector<hsize_t> start(global.size(), 0);
      std::vector<hsize_t> count = to_hsize(local_shape);
      start[0] = static_cast<hsize_t>(row_offset);
      CAMBER_CHECK_HDF5(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(),
                                            nullptr, count.data(), nullptr));
    }
    Hid dxpl = collective_transfer();
    CAMBER_CHECK_HDF5(H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, memory_space.get(),
                              file_space.get(), dxpl.get(), nonnull(host.data())));
    Kokkos::deep_copy(result.view(), host);
    return result;
  }

  // Creates (or replaces) an attribute and writes it. `data` holds the value
  // in `memory_type`.
  void write_attribute(const std::string& object, const std::string& name, hid_t file_type,
                       hid_t memory_type, const Hid& space, const void* data) const {
    std::string abs;
    agree([&] {
      require_writable("set_attribute");
      abs = require_object("set_attribute", object);
      CAMBER_REQUIRE(!name.empty(), "H5File::set_attribute: the attribute name is empty");
    });
    Hid target(CAMBER_CHECK_HDF5(H5Oopen(file, abs.c_str(), H5P_DEFAULT)), H5Oclose);
    if (CAMBER_CHECK_HDF5(H5Aexists(target.get(), name.c_str())) > 0)
      CAMBER_CHECK_HDF5(H5Adelete(target.get(), name.c_str()));
    Hid attribute(CAMBER_CHECK_HDF5(H5Acreate2(target.get(), name.c_str(), file_type,
                                               space.get(), H5P_DEFAULT, H5P_DEFAULT)),
                  H5Aclose);
    if (data != nullptr)
      CAMBER_CHECK_HDF5(H5Awrite(attribute.get(), memory_type, data));
    attribute.close();
  }

  // Opens an attribute for reading and runs `read` on it, all inside one
  // agreement (attribute reads are independent, rank-local operations).
  template <class T>
  T read_attribute(const std::string& object, const std::string& name,
                   const std::function<T(hid_t attribute, const std::string& what)>& read) const {
    T value{};
    agree([&] {
      const std::string abs = require_object("attribute", object);
      const std::string on = "attribute '" + name + "' on '" + abs + "'";
      const std::string what = on + " in " + where();
      CAMBER_INPUT_REQUIRE(
          CAMBER_CHECK_HDF5(H5Aexists_by_name(file, abs.c_str(), name.c_str(), H5P_DEFAULT)) > 0,
          where() << " has no " << on);
      Hid attribute(CAMBER_CHECK_HDF5(H5Aopen_by_name(file, abs.c_str(), name.c_str(),
                                                      H5P_DEFAULT, H5P_DEFAULT)),
                    H5Aclose);
      value = read(attribute.get(), what);
    });
    return value;
  }

  void abandon() noexcept {
    // Leaks the HDF5 file and the communicator on purpose: closing either is
    // collective, and the other ranks may never get here.
    file = H5I_INVALID_HID;
    comm = MPI_COMM_NULL;
  }
};

namespace {

H5T_class_t attribute_class(hid_t attribute) {
  Hid type(CAMBER_CHECK_HDF5(H5Aget_type(attribute)), H5Tclose);
  return CAMBER_CHECK_HDF5(H5Tget_class(type.get()));
}

hssize_t attribute_points(hid_t attribute) {
  Hid space(CAMBER_CHECK_HDF5(H5Aget_space(attribute)), H5Sclose);
  return CAMBER_CHECK_HDF5(H5Sget_simple_extent_npoints(space.get()));
}

}  // namespace

// ---------------------------------------------------------------------------

H5File::H5File(const std::string& path, Mode mode, MPI_Comm comm)
    : impl_(std::make_unique<Impl>()) {
  detail::silence_hdf5_errors();
  Impl& m = *impl_;
  m.path = path;
  m.mode = mode;
  m.uncaught_at_open = std::uncaught_exceptions();
  CAMBER_CHECK_MPI(MPI_Comm_dup(comm, &m.comm));
  m.rank = comm_rank(m.comm);
  m.size = comm_size(m.comm);

  Hid fapl(CAMBER_CHECK_HDF5(H5Pcreate(H5P_FILE_ACCESS)), H5Pclose);
  CAMBER_CHECK_HDF5(H5Pset_fapl_mpio(fapl.get(), m.comm, MPI_INFO_NULL));

  if (mode == Mode::create) {
    m.open_path = temporary_path(path).string();
    detail::on_rank0(m.comm, [&] {
      CAMBER_REQUIRE(!path.empty(), "H5File: the file name is empty");
      create_parent_directories(path);
    });
    // Metadata goes out in collective MPI-IO writes rather than from rank 0
    // alone, which scales better on parallel file systems.
    CAMBER_CHECK_HDF5(H5Pset_coll_metadata_write(fapl.get(), true));
    m.agree([&] {
      m.file = CAMBER_CHECK_HDF5(
          H5Fcreate(m.open_path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
    });
  } else {
    m.open_path = path;
    m.agree([&] {
      CAMBER_INPUT_REQUIRE(fs::exists(path), "cannot open HDF5 file '"
                                                 << path << "': no such file");
    });
    m.agree([&] {
      try {
        m.file = CAMBER_CHECK_HDF5(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()));
      } catch (const Error& e) {
        throw_bad_input("cannot open '" + path + "' as an HDF5 file: " + e.message());
      }
    });
  }
}

H5File::~H5File() { finish(); }

H5File::H5File(H5File&&) noexcept = default;

H5File& H5File::operator=(H5File&& other) noexcept {
  if (this != &other) {
    finish();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

void H5File::finish() noexcept {
  if (!impl_ || impl_->file < 0) return;
  if (std::uncaught_exceptions() > impl_->uncaught_at_open) {
    impl_->abandon();
    return;
  }
  try {
    close();
  } catch (const std::exception& e) {
    // A destructor cannot throw; close() explicitly to handle this.
    std::fprintf(stderr, "camber: error on rank %d while closing %s: %s\n", impl_->rank,
                 impl_->where().c_str(), e.what());
  }
}

H5File::Impl& H5File::impl() const {
  CAMBER_REQUIRE(impl_ != nullptr, "H5File: this object was moved from");
  return *impl_;
}

const std::string& H5File::path() const { return impl().path; }
Mode H5File::mode() const { return impl().mode; }
MPI_Comm H5File::comm() const { return impl().comm; }
bool H5File::is_open() const { return impl_ && impl_->file >= 0; }

void H5File::close() {
  Impl& m = impl();
  if (m.file < 0) return;
  detail::silence_hdf5_errors();
  const hid_t file = m.file;
  m.file = H5I_INVALID_HID;
  CAMBER_CHECK_HDF5(H5Fclose(file));
  if (m.mode == Mode::create) {
    // Every rank has finished its part of the file before it replaces the
    // old one, and the new one is in place when close() returns on any rank.
    commit_file_collective(m.open_path, m.path, m.comm);
  }
}

// ---- Datasets --------------------------------------------------------------

void H5File::write(const std::string& name, const Tensor& local) {
  Impl& m = impl();
  detail::silence_hdf5_errors();
  m.require_consistent_blocks("write", name, local, /*distributed=*/true);
  std::int64_t rows = local.dim(0);
  std::int64_t offset = 0;
  std::int64_t total = 0;
  CAMBER_CHECK_MPI(MPI_Exscan(&rows, &offset, 1, MPI_INT64_T, MPI_SUM, m.comm));
  if (m.rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's result undefined
  CAMBER_CHECK_MPI(MPI_Allreduce(&rows, &total, 1, MPI_INT64_T, MPI_SUM, m.comm));
  std::string abs;
  m.agree([&] {
    abs = absolute_object_path(name);
    CAMBER_REQUIRE(abs != "/", "H5File::write: the dataset name is empty");
    CAMBER_REQUIRE(object_type(m.file, abs) == H5I_BADID,
                   "H5File::write: '" << name << "' already exists in " << m.where()
                                      << "; each dataset is written once per file");
  });
  Shape global = local.shape();
  global[0] = total;
  m.write_block(abs, global, local, offset, /*selected=*/true);
}

void H5File::write_replicated(const std::string& name, const Tensor& value) {
  Impl& m = impl();
  detail::silence_hdf5_errors();
  m.require_consistent_blocks("write_replicated", name, value, /*distributed=*/false);
  std::string abs;
  m.agree([&] {
    abs = absolute_object_path(name);
    CAMBER_REQUIRE(abs != "/", "H5File::write_replicated: the dataset name is empty");
    CAMBER_REQUIRE(object_type(m.file, abs) == H5I_BADID,
                   "H5File::write_replicated: '" << name << "' already exists in "
                                                 << m.where()
                                                 << "; each dataset is written once per file");
  });
  m.write_block(abs, value.shape(), value, 0, /*selected=*/m.rank == 0);
}

bool H5File::has_dataset(const std::string& name) const {
  const Impl& m = impl();
  detail::silence_hdf5_errors();
  bool found = false;
  m.agree([&] {
    m.require_open("has_dataset");
    found = object_type(m.file, absolute_object_path(name)) == H5I_DATASET;
  });
  return found;
}

Shape H5File::shape(const std::string& name) const {
  const Impl& m = impl();
  detail::silence_hdf5_errors();
  Shape result;
  m.agree([&] {
    const std::string abs = m.require_dataset("shape", name);
    Hid dataset(CAMBER_CHECK_HDF5(H5Dopen2(m.file, abs.c_str(), H5P_DEFAULT)), H5Dclose);
    result = m.dataset_shape(dataset.get(), name);
  });
  return result;
}

Tensor H5File::read(const std::string& name) const {
  const Impl& m = impl();
  const Shape global = shape(name);
  m.agree([&] {
    CAMBER_INPUT_REQUIRE(!global.empty(),
                         "H5File::read('" << name << "'): the dataset in " << m.where()
                                          << " is a scalar and has no rows to distribute; "
                                             "use read_all");
  });
  const RowBlock block = even_row_block(global[0], m.rank, m.size);
  return read(name, block.offset, block.count);
}

Tensor H5File::read(const std::string& name, index_t row_offset, index_t row_count) const {
  const Impl& m = impl();
  detail::silence_hdf5_errors();
  std::string abs;
  Shape global;
  m.agree([&] {
    abs = m.require_dataset("read", name);
    Hid dataset(CAMBER_CHECK_HDF5(H5Dopen2(m.file, abs.c_str(), H5P_DEFAULT)), H5Dclose);
    global = m.dataset_shape(dataset.get(), name);
    CAMBER_INPUT_REQUIRE(!global.empty(),
                         "H5File::read('" << name << "'): the dataset in " << m.where()
                                          << " is a scalar and has no rows; use read_all");
    CAMBER_REQUIRE(row_offset >= 0 && row_count >= 0 && row_offset + row_count <= global[0],
                   "H5File::read('" << name << "'): rank " << m.rank << " asked for rows ["
                                    << row_offset << ", " << row_offset + row_count
                                    << ") but the dataset in " << m.where() << " has "
                                    << global[0] << " rows");
  });
  return m.read_rows(abs, global, row_offset, row_count, /*whole=*/false);
}

Tensor H5File::read_all(const std::string& name) const {
  const Impl& m = impl();
  detail::silence_hdf5_errors();
  std::string abs;
  Shape global;
  m.agree([&] {
    abs = m.require_dataset("read_all", name);
    Hid dataset(CAMBER_CHECK_HDF5(H5Dopen2(m.file, abs.c_str(), H5P_DEFAULT)), H5Dclose);
    global = m.dataset_shape(dataset.get(), name);
  });
  return m.read_rows(abs, global, 0, global.empty() ? 1 : global[0], /*whole=*/true);
}

// ---- Attributes ------------------------------------------------------------

void H5File::set_attribute(const std::string& object, const std::string& name,
                           const std::string& value) {
  const Impl& m = impl();
  detail::silence_hdf5_errors();
  // Fixed-length UTF-8, padded with NULs (HDF5 cannot store a zero-length
  // fixed string, so "" takes one NUL byte).
  Hid type(CAMBER_CHECK_HDF5(H5Tcopy(H5T_C_S1)), H5Tclose);
  CAMBER_CHECK_HDF5(H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)));
  CAMBER_CHECK_HDF5(H5Tset_strpad(type.get(), H5T_STR_NULLPAD));
  CAMBER_CHECK_HDF5(H5Tset_cset(type.get(), H5T_CSET_UTF8));
  Hid space(CAMBER_CHECK_HDF5(H5Screate(H5S_SCALAR)), H5Sclose);
  m.write_attribute(object, name, type.get(), type.get(), space, value.c_str());
}

void H5File::set_attribute(const std::string& object, const std::string& name,
                           const char* value) {
  set_attribute(object, name, std::string(value != nullptr ? value : ""));
}

void H5File::set_attribute(const std::string& object, const std::string& name,
                           double value) {
  detail::silence_hdf5_errors();
  Hid space(CAMBER_CHECK_HDF5(H5Screate(H5S_SCALAR)), H5Sclose);
  impl().write_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space, &value);
}

void H5File::set_attribute(const std::string& object, const std::string& name,
                           std::int64_t value) {
  detail::silence_hdf5_errors();
  Hid space(CAMBER_CHECK_HDF5(H5Screate(H5S_SCALAR)), H5Sclose);
  impl().write_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, space, &value);
}

void H5File::set_attribute(const std::string& object, const std::string& name, int value) {
  set_attribute(object, name, static_cast<std::int64_t>(value));
}

void H5File::set_attribute(const std::string& object, const std::string& name,
                           const std::vector<double>& value) {
  detail::silence_hdf5_errors();
  const hsize_t n = value.size();
  // An empty vector is a null dataspace (no elements, nothing to write).
  Hid space(n == 0 ? CAMBER_CHECK_HDF5(H5Screate(H5S_NULL))
                   : CAMBER_CHECK_HDF5(H5Screate_simple(1, &n, nullptr)),
            H5Sclose);
  impl().write_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space,
                         n == 0 ? nullptr : value.data());
}

bool H5File::has_attribute(const std::string& object, const std::string& name) const {
  const Impl& m = impl();
  detail::silence_hdf5_errors();
  bool found = false;
  m.agree([&] {
    const std::string abs = m.require_object("has_attribute", object);
    found = CAMBER_CHECK_HDF5(
                H5Aexists_by_name(m.file, abs.c_str(), name.c_str(), H5P_DEFAULT)) > 0;
  });
  return found;
}

template <>
std::string H5File::attribute<std::string>(const std::string& object,
                                           const std::string& name) const {
  detail::silence_hdf5_errors();
  return impl().read_attribute<std::string>(
      object, name, [](hid_t attribute, const std::string& what) {
        Hid type(CAMBER_CHECK_HDF5(H5Aget_type(attribute)), H5Tclose);
        CAMBER_INPUT_REQUIRE(CAMBER_CHECK_HDF5(H5Tget_class(type.get())) == H5T_STRING,
                             what << " is not a string");
        CAMBER_INPUT_REQUIRE(attribute_points(attribute) == 1,
                             what << " holds several strings; expected one");
        if (CAMBER_CHECK_HDF5(H5Tis_variable_str(type.get())) > 0) {
          // Variable-length strings, as h5py writes them.
          Hid memory_type(CAMBER_CHECK_HDF5(H5Tcopy(H5T_C_S1)), H5Tclose);
          CAMBER_CHECK_HDF5(H5Tset_size(memory_type.get(), H5T_VARIABLE));
          CAMBER_CHECK_HDF5(
              H5Tset_cset(memory_type.get(), CAMBER_CHECK_HDF5(H5Tget_cset(type.get()))));
          char* text = nullptr;
          CAMBER_CHECK_HDF5(H5Aread(attribute, memory_type.get(), &text));
          std::string value = text != nullptr ? text : "";
          if (text != nullptr) H5free_memory(text);
          return value;
        }
        const std::size_t size = H5Tget_size(type.get());
        CAMBER_REQUIRE(size > 0, "H5Tget_size failed for " << what);
        std::string buffer(size + 1, '\0');
        CAMBER_CHECK_HDF5(H5Aread(attribute, type.get(), buffer.data()));
        buffer.resize(buffer.find('\0'));
        return buffer;
      });
}

template <>
double H5File::attribute<double>(const std::string& object, const std::string& name) const {
  detail::silence_hdf5_errors();
  return impl().read_attribute<double>(
      object, name, [](hid_t attribute, const std::string& what) {
        const H5T_class_t type_class = attribute_class(attribute);
        CAMBER_INPUT_REQUIRE(type_class == H5T_FLOAT || type_class == H5T_INTEGER,
                             what << " is not a number");
        CAMBER_INPUT_REQUIRE(attribute_points(attribute) == 1,
                             what << " holds " << attribute_points(attribute)
                                  << " values; read it as std::vector<double>");
        double value = 0.0;
        CAMBER_CHECK_HDF5(H5Aread(attribute, H5T_NATIVE_DOUBLE, &value));
        return value;
      });
}

template <>
std::int64_t H5File::attribute<std::int64_t>(const std::string& object,
                                             const std::string& name) const {
  detail::silence_hdf5_errors();
  return impl().read_attribute<std::int64_t>(
      object, name, [](hid_t attribute, const std::string& what) {
        CAMBER_INPUT_REQUIRE(attribute_class(attribute) == H5T_INTEGER,
                             what << " is not an integer");
        CAMBER_INPUT_REQUIRE(attribute_points(attribute) == 1,
                             what << " holds " << attribute_points(attribute)
                                  << " values; expected one");
        std::int64_t value = 0;
        CAMBER_CHECK_HDF5(H5Aread(attribute, H5T_NATIVE_INT64, &value));
        return value;
      });
}

template <>
std::vector<double> H5File::attribute<std::vector<double>>(const std::string& object,
                                                           const std::string& name) const {
  detail::silence_hdf5_errors();
  return impl().read_attribute<std::vector<double>>(
      object, name, [](hid_t attribute, const std::string& what) {
        const H5T_class_t type_class = attribute_class(attribute);
        CAMBER_INPUT_REQUIRE(type_class == H5T_FLOAT || type_class == H5T_INTEGER,
                             what << " does not hold numbers");
        std::vector<double> values(static_cast<std::size_t>(attribute_points(attribute)));
        if (!values.empty())
          CAMBER_CHECK_HDF5(H5Aread(attribute, H5T_NATIVE_DOUBLE, values.data()));
        return values;
      });
}

}  // namespace camber::io
