#include <camber/nn/io/model_file.hpp>

#include <hdf5.h>
#include <openssl/evp.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>

#include "detail/lines.hpp"

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
// The core I/O module's HDF5 check, internal to Camber (not installed).
#include "../../src/io/detail/hdf5_check.hpp"
#include <camber/core/version.hpp>
#include <camber/trust/signature.hpp>

namespace camber::nn::io {

namespace fs = std::filesystem;
using camber::io::detail::Hid;

namespace {

constexpr const char* model_format = "camber-nn-model";
constexpr std::int64_t model_version = 1;
constexpr std::size_t userblock = 512;  // HDF5: a power of two >= 512
constexpr const char* magic = "CAMBER-MODEL ";

// ---- SHA-256 (OpenSSL EVP) -------------------------------------------------

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    CAMBER_REQUIRE(ctx_ && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1,
                   "SHA-256: OpenSSL could not start a digest");
  }
  void update(const char* data, std::size_t n) {
    CAMBER_REQUIRE(EVP_DigestUpdate(ctx_.get(), data, n) == 1, "SHA-256: OpenSSL update failed");
  }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> d{};
    unsigned int n = 0;
    CAMBER_REQUIRE(EVP_DigestFinal_ex(ctx_.get(), d.data(), &n) == 1,
                   "SHA-256: OpenSSL final failed");
    std::ostringstream s;
    for (unsigned int i = 0; i < n; ++i) s << std::hex << std::setw(2) << std::setfill('0') << int{d[i]};
    return s.str();
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

// Digest of bytes [from, end) of a file.
std::string sha256_from(const std::string& path, std::uintmax_t from) {
  std::ifstream in(path, std::ios::binary);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot read '" << path << "'");
  in.seekg(static_cast<std::streamoff>(from));
  Sha256 h;
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.update(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  return h.hex();
}

// ---- small serial HDF5 helpers --------------------------------------------

Hid string_type(std::size_t n) {
  Hid t(CAMBER_CHECK_HDF5(H5Tcopy(H5T_C_S1)), H5Tclose);
  CAMBER_CHECK_HDF5(H5Tset_size(t.get(), std::max<std::size_t>(n, 1)));
  CAMBER_CHECK_HDF5(H5Tset_strpad(t.get(), H5T_STR_NULLPAD));
  return t;
}

void set_string(hid_t obj, const char* name, const std::string& value) {
  Hid type = string_type(value.size());
  Hid space(CAMBER_CHECK_HDF5(H5Screate(H5S_SCALAR)), H5Sclose);
  Hid a(CAMBER_CHECK_HDF5(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT)),
        H5Aclose);
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  CAMBER_CHECK_HDF5(H5Awrite(a.get(), type.get(), padded.data()));
}

void set_int(hid_t obj, const char* name, std::int64_t value) {
  Hid space(CAMBER_CHECK_HDF5(H5Screate(H5S_SCALAR)), H5Sclose);
  Hid a(CAMBER_CHECK_HDF5(H5Acreate2(obj, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT)),
        H5Aclose);
  CAMBER_CHECK_HDF5(H5Awrite(a.get(), H5T_NATIVE_INT64, &value));
}

void set_real(hid_t obj, const char* name, double value) {
  Hid space(CAMBER_CHECK_HDF5(H5Screate(H5S_SCALAR)), H5Sclose);
  Hid a(CAMBER_CHECK_HDF5(H5Acreate2(obj, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT)),
        H5Aclose);
  CAMBER_CHECK_HDF5(H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &value));
}

void write_array(hid_t loc, const char* name, const std::vector<hsize_t>& dims, hid_t file_type,
                 hid_t mem_type, const void* data) {
  Hid space(CAMBER_CHECK_HDF5(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr)),
            H5Sclose);
  Hid d(CAMBER_CHECK_HDF5(H5Dcreate2(loc, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                     H5P_DEFAULT)),
        H5Dclose);
  CAMBER_CHECK_HDF5(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
}

Hid make_group(hid_t loc, const char* name) {
  return Hid(CAMBER_CHECK_HDF5(H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)),
             H5Gclose);
}

void write_doubles(hid_t loc, const char* name, const std::vector<double>& v) {
  write_array(loc, name, {static_cast<hsize_t>(v.size())}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
              v.data());
}

// Reading: every lookup names the file and the entry when it fails.
struct Reader {
  std::string path;
  hid_t file = H5I_INVALID_HID;
  std::uintmax_t bytes = 0;  // the file's size: no entry can be larger

  bool has_link(const std::string& name) const {
    std::string at;
    std::istringstream parts(name);
    std::string part;
    while (std::getline(parts, part, '/')) {
      at += (at.empty() ? "" : "/") + part;
      if (H5Lexists(file, at.c_str(), H5P_DEFAULT) <= 0) return false;
    }
    return true;
  }
  Hid object(const std::string& name) const {
    CAMBER_INPUT_REQUIRE(name.empty() || has_link(name), path << ": missing '" << name << "'");
    return Hid(CAMBER_CHECK_HDF5(H5Oopen(file, name.empty() ? "/" : name.c_str(), H5P_DEFAULT)),
               H5Oclose);
  }
  bool has_attribute(const std::string& object_name, const char* name) const {
    Hid o = object(object_name);
    return H5Aexists(o.get(), name) > 0;
  }
  Hid attribute(const std::string& object_name, const char* name) const {
    Hid o = object(object_name);
    CAMBER_INPUT_REQUIRE(H5Aexists(o.get(), name) > 0,
                         path << ": missing attribute '" << name << "' of '/" << object_name << "'");
    return Hid(CAMBER_CHECK_HDF5(H5Aopen(o.get(), name, H5P_DEFAULT)), H5Aclose);
  }
  std::string string(const std::string& object_name, const char* name) const {
    Hid a = attribute(object_name, name);
    Hid type(CAMBER_CHECK_HDF5(H5Aget_type(a.get())), H5Tclose);
    CAMBER_INPUT_REQUIRE(H5Tget_class(type.get()) == H5T_STRING && H5Tis_variable_str(type.get()) == 0,
                         path << ": attribute '" << name << "' of '/" << object_name
                              << "' is not a fixed-length string");
    const std::size_t n = H5Tget_size(type.get());
    CAMBER_INPUT_REQUIRE(n <= bytes, path << ": attribute '" << name << "' of '/" << object_name
                                          << "' claims " << n << " bytes, more than the file holds");
    std::string s(n, '\0');
    Hid mem = string_type(n);
    CAMBER_CHECK_HDF5(H5Aread(a.get(), mem.get(), s.data()));
    s.resize(std::strlen(s.c_str()));
    return s;
  }
  std::int64_t integer(const std::string& object_name, const char* name) const {
    Hid a = attribute(object_name, name);
    Hid type(CAMBER_CHECK_HDF5(H5Aget_type(a.get())), H5Tclose);
    CAMBER_INPUT_REQUIRE(H5Tget_class(type.get()) == H5T_INTEGER,
                         path << ": attribute '" << name << "' of '/" << object_name
                              << "' is not an integer");
    std::int64_t v = 0;
    CAMBER_CHECK_HDF5(H5Aread(a.get(), H5T_NATIVE_INT64, &v));
    return v;
  }
  double real(const std::string& object_name, const char* name) const {
    Hid a = attribute(object_name, name);
    Hid type(CAMBER_CHECK_HDF5(H5Aget_type(a.get())), H5Tclose);
    CAMBER_INPUT_REQUIRE(H5Tget_class(type.get()) == H5T_FLOAT,
                         path << ": attribute '" << name << "' of '/" << object_name
                              << "' is not a floating-point number");
    double v = 0.0;
    CAMBER_CHECK_HDF5(H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v));
    return v;
  }
  // A dataset of numbers, its shape and its stored class (float or integer).
  std::vector<double> numbers(const std::string& name, std::vector<hsize_t>* dims,
                              H5T_class_t want, std::size_t* stored_bytes = nullptr) const {
    CAMBER_INPUT_REQUIRE(has_link(name), path << ": missing dataset '" << name << "'");
    Hid d(CAMBER_CHECK_HDF5(H5Dopen2(file, name.c_str(), H5P_DEFAULT)), H5Dclose);
    Hid type(CAMBER_CHECK_HDF5(H5Dget_type(d.get())), H5Tclose);
    CAMBER_INPUT_REQUIRE(H5Tget_class(type.get()) == want,
                         path << ": dataset '" << name << "' has the wrong element type");
    if (stored_bytes != nullptr) *stored_bytes = H5Tget_size(type.get());
    Hid space(CAMBER_CHECK_HDF5(H5Dget_space(d.get())), H5Sclose);
    const int rank = CAMBER_CHECK_HDF5(H5Sget_simple_extent_ndims(space.get()));
    CAMBER_INPUT_REQUIRE(rank >= 1 && rank <= 2, path << ": dataset '" << name << "' has rank " << rank);
    dims->assign(static_cast<std::size_t>(rank), 0);
    CAMBER_CHECK_HDF5(H5Sget_simple_extent_dims(space.get(), dims->data(), nullptr));
    hsize_t n = 1;
    for (hsize_t e : *dims) {
      CAMBER_INPUT_REQUIRE(e == 0 || n <= bytes / e,
                           path << ": dataset '" << name << "' claims more values than the file's "
                                << bytes << " bytes hold");
      n *= e;
    }
    std::vector<double> v(static_cast<std::size_t>(n));
    if (n > 0) CAMBER_CHECK_HDF5(H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()));
    return v;
  }
  std::vector<double> vector(const std::string& name, std::size_t expect) const {
    std::vector<hsize_t> dims;
    std::vector<double> v = numbers(name, &dims, H5T_FLOAT);
    CAMBER_INPUT_REQUIRE(dims.size() == 1 && v.size() == expect,
                         path << ": dataset '" << name << "' has " << v.size() << " values, "
                              << expect << " expected");
    return v;
  }
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void write_columns(hid_t file, const char* group, const Columns& c, const Normalization& n) {
  Hid g = make_group(file, group);
  set_string(g.get(), "names", detail::join_lines(c.names));
  set_string(g.get(), "units", detail::join_lines(c.units));
  write_doubles(g.get(), "mean", n.mean);
  write_doubles(g.get(), "std", n.stddev);
}

void read_columns(const Reader& r, const std::string& group, index_t count, Columns* c,
                  Normalization* n) {
  c->names = detail::split_lines(r.string(group, "names"), static_cast<size_t>(count));
  c->units = detail::split_lines(r.string(group, "units"), static_cast<size_t>(count));
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(c->names.size()) == count &&
                           static_cast<index_t>(c->units.size()) == count,
                       r.path << ": /" << group << " names " << c->names.size() << " columns, the "
                              << "network has " << count);
  n->mean = r.vector(group + "/mean", static_cast<size_t>(count));
  n->stddev = r.vector(group + "/std", static_cast<size_t>(count));
}

// A column list's names: each non-empty, without control characters or
// blanks at either end (a CSV header could not name it), and each once.
void check_names(const Columns& c, const std::string& where) {
  for (size_t j = 0; j < c.names.size(); ++j) {
    const std::string& name = c.names[j];
    CAMBER_INPUT_REQUIRE(!name.empty(), where << " names: column " << j << " has an empty name");
    bool plain = name.front() != ' ' && name.back() != ' ';
    for (char ch : name) plain = plain && !std::iscntrl(static_cast<unsigned char>(ch));
    for (char ch : j < c.units.size() ? c.units[j] : std::string())
      plain = plain && !std::iscntrl(static_cast<unsigned char>(ch));
    CAMBER_INPUT_REQUIRE(plain, where << " names: column " << j << " ('" << printable_text(name)
                                      << "') has control characters or blanks at an end in its "
                                         "name or unit");
    for (size_t k = 0; k < j; ++k)
      CAMBER_INPUT_REQUIRE(c.names[k] != name, where << " names: '" << printable_text(name) << "' names columns "
                                                     << k << " and " << j);
  }
}

// Means finite, standard deviations finite and positive (inputs and outputs
// are divided by them).
void check_stats(const Columns& c, const Normalization& n, const std::string& where) {
  for (size_t j = 0; j < n.mean.size(); ++j)
    CAMBER_INPUT_REQUIRE(std::isfinite(n.mean[j]), where << "/mean[" << j << "] ('"
                                                         << printable_text(c.names[j]) << "') is "
                                                         << n.mean[j] << ", not a finite number");
  for (size_t j = 0; j < n.stddev.size(); ++j)
    CAMBER_INPUT_REQUIRE(std::isfinite(n.stddev[j]) && n.stddev[j] > 0.0,
                         where << "/std[" << j << "] ('" << printable_text(c.names[j]) << "') is "
                               << n.stddev[j] << "; a standard deviation must be finite and > 0");
}

// The card's counts and errors: none negative, the errors finite.
void check_card(const ModelCard& c, const std::string& where) {
  const std::pair<const char*, std::int64_t> counts[] = {
      {"data_rows", c.data_rows}, {"epochs", c.epochs}, {"validation_rows", c.validation_rows}};
  // Not a structured binding: the macro's message is built in a lambda,
  // and clang before 16 cannot capture those.
  for (const auto& count : counts)
    CAMBER_INPUT_REQUIRE(count.second >= 0, where << " " << count.first << " is " << count.second
                                                  << "; a count is >= 0");
  for (size_t j = 0; j < c.validation_rmse.size(); ++j)
    CAMBER_INPUT_REQUIRE(std::isfinite(c.validation_rmse[j]) && c.validation_rmse[j] >= 0.0,
                         where << "/validation_rmse[" << j << "] is " << c.validation_rmse[j]
                               << "; an RMSE is finite and >= 0");
  CAMBER_INPUT_REQUIRE(std::isfinite(c.extrapolation_margin) && c.extrapolation_margin >= 0.0,
                       where << " extrapolation_margin is " << c.extrapolation_margin
                             << "; a margin is finite and >= 0");
}

// The training range: none, or one finite [min, max] per input.
void check_range(const ModelCard& c, const Columns& inputs, const std::string& where) {
  const size_t n = inputs.names.size();
  CAMBER_INPUT_REQUIRE((c.input_min.empty() && c.input_max.empty()) ||
                           (c.input_min.size() == n && c.input_max.size() == n),
                       where << " has " << c.input_min.size() << " input_min and " << c.input_max.size()
                             << " input_max values for " << n << " inputs (one each, or none)");
  for (size_t j = 0; j < c.input_min.size(); ++j)
    CAMBER_INPUT_REQUIRE(std::isfinite(c.input_min[j]) && std::isfinite(c.input_max[j]) &&
                             c.input_min[j] <= c.input_max[j],
                         where << " training range of input " << j << " ('" << printable_text(inputs.names[j])
                               << "') is [" << c.input_min[j] << ", " << c.input_max[j]
                               << "]; it must be finite, min <= max");
}

// Every value of a dataset finite, else the dataset and the entry named.
void check_finite(const std::vector<double>& v, const std::string& where) {
  for (size_t i = 0; i < v.size(); ++i)
    CAMBER_INPUT_REQUIRE(std::isfinite(v[i]), where << "[" << i << "] is " << v[i]
                                                    << ", not a finite number");
}

// The header in the userblock, checked against the file's bytes.
struct Header {
  std::int64_t version = 0;
  std::uintmax_t bytes = 0;
  std::string sha256;
};

// From the file, or from its bytes already read (`image`, when not null).
Header check_header(const std::string& path, const std::string* image = nullptr) {
  std::error_code ec;
  std::uintmax_t size = 0;
  std::string head;
  if (image) {
    size = image->size();
    head = image->substr(0, userblock);
  } else {
    CAMBER_INPUT_REQUIRE(fs::is_regular_file(path, ec), "cannot open model file '" << path
                                                                                   << "': no such file");
    size = fs::file_size(path, ec);
    std::ifstream in(path, std::ios::binary);
    CAMBER_INPUT_REQUIRE(!ec && in.good(), "cannot read model file '" << path << "'");
    head.assign(userblock, '\0');
    in.read(head.data(), static_cast<std::streamsize>(userblock));
    head.resize(static_cast<std::size_t>(in.gcount()));
  }
  if (head.compare(0, std::strlen(magic), magic) != 0) {
    const bool hdf5 = head.size() >= 8 && head.compare(0, 8, "\x89HDF\r\n\x1a\n") == 0;
    CAMBER_INPUT_REQUIRE(false, "'" << path << "' is not a Camber model file"
                                    << (hdf5 ? " (an HDF5 file without the model header: a data "
                                               "set or a training checkpoint?)"
                                             : ""));
  }
  CAMBER_INPUT_REQUIRE(head.size() == userblock,
                       "model file '" << path << "' is truncated: " << size << " bytes");
  Header h;
  std::istringstream lines(head.substr(0, head.find('\0')));
  std::string word;
  bool ok = static_cast<bool>(lines >> word >> h.version);  // "CAMBER-MODEL" <version>
  std::string key;
  ok = ok && static_cast<bool>(lines >> key >> h.bytes) && key == "bytes";
  ok = ok && static_cast<bool>(lines >> key >> h.sha256) && key == "sha256" && h.sha256.size() == 64;
  for (char c : h.sha256) ok = ok && std::isxdigit(static_cast<unsigned char>(c));
  CAMBER_INPUT_REQUIRE(ok, "model file '" << path << "' has a corrupt header");
  CAMBER_INPUT_REQUIRE(h.version == model_version, "model file '" << path << "' has format version "
                                                                   << h.version << ", this build reads "
                                                                   << model_version);
  CAMBER_INPUT_REQUIRE(size >= h.bytes, "model file '" << path << "' is truncated: " << size
                                                       << " of " << h.bytes << " bytes");
  CAMBER_INPUT_REQUIRE(size == h.bytes, "model file '" << path << "' has " << size
                                                       << " bytes, its header says " << h.bytes
                                                       << " (data appended)");
  std::string digest;
  if (image) {
    Sha256 sha;
    sha.update(image->data() + userblock, image->size() - userblock);
    digest = sha.hex();
  } else {
    digest = sha256_from(path, userblock);
  }
  CAMBER_INPUT_REQUIRE(digest == h.sha256,
                       "model file '" << path << "' fails its checksum: its content changed after "
                                      << "it was written (SHA-256 " << digest << ", header "
                                      << h.sha256 << ")");
  return h;
}

void seal(const std::string& path) {
  const std::uintmax_t size = fs::file_size(path);
  std::ostringstream head;
  head << magic << model_version << "\nbytes " << size << "\nsha256 "
       << sha256_from(path, userblock) << "\n";
  std::string block = head.str();
  block.resize(userblock, '\0');
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  CAMBER_REQUIRE(f.good(), "cannot reopen '" << path << "' to seal it");
  f.write(block.data(), static_cast<std::streamsize>(block.size()));
  f.flush();
  CAMBER_REQUIRE(f.good(), "cannot write the header of '" << path << "'");
}

}  // namespace

std::string printable_text(const std::string& text) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto escape = [&](unsigned char b) {
    out += "\\x";
    out += hex[b >> 4];
    out += hex[b & 15];
  };
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (b == '\t' || (b >= 0x20 && b != 0x7f))
        out += static_cast<char>(b);
      else
        escape(b);
      ++i;
      continue;
    }
    // A UTF-8 sequence passes whole when it is well formed, not overlong,
    // not a surrogate and not a C1 control (U+0080..U+009F); any other
    // byte is escaped on its own.
    const int n = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    std::uint32_t cp = n == 4 ? b & 0x07u : n == 3 ? b & 0x0fu : b & 0x1fu;
    bool ok = n > 0 && i + static_cast<size_t>(n) <= text.size();
    for (int k = 1; ok && k < n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + static_cast<size_t>(k)]);
      ok = (c & 0xc0) == 0x80;
      cp = (cp << 6) | (c & 0x3fu);
    }
    ok = ok && cp >= (n == 2 ? 0xa0u : n == 3 ? 0x800u : 0x10000u) && cp <= 0x10ffff &&
         !(cp >= 0xd800 && cp <= 0xdfff);
    if (ok) {
      out.append(text, i, static_cast<size_t>(n));
      i += static_cast<size_t>(n);
    } else {
      escape(b);
      ++i;
    }
  }
  return out;
}

std::string sha256_file(const std::string& path) {
  std::error_code ec;
  CAMBER_INPUT_REQUIRE(fs::is_regular_file(path, ec), "cannot hash '" << path << "': no such file");
  return sha256_from(path, 0);
}

void save_model(const std::string& path, const Surrogate& s, ModelCard card) {
  camber::io::detail::silence_hdf5_errors();
  if (card.created.empty()) card.created = utc_now();
  if (card.camber_version.empty()) card.camber_version = CAMBER_VERSION_STRING;
  const NetworkSpec& spec = s.spec();
  CAMBER_REQUIRE(card.validation_rmse.empty() ||
                     static_cast<index_t>(card.validation_rmse.size()) == spec.out,
                 "save_model: " << card.validation_rmse.size() << " validation errors for "
                                << spec.out << " outputs");
  check_names(s.inputs(), "save_model: inputs");
  check_names(s.outputs(), "save_model: outputs");
  check_card(card, "save_model: card");
  check_range(card, s.inputs(), "save_model: card");
  create_parent_directories(path);
  const std::string tmp = temporary_path(path).string();
  {
    Hid fcpl(CAMBER_CHECK_HDF5(H5Pcreate(H5P_FILE_CREATE)), H5Pclose);
    CAMBER_CHECK_HDF5(H5Pset_userblock(fcpl.get(), userblock));
    Hid file(CAMBER_CHECK_HDF5(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT)),
             H5Fclose);
    const hid_t f = file.get();
    set_string(f, "format", model_format);
    set_int(f, "version", model_version);

    Hid net = make_group(f, "network");
    set_string(net.get(), "kind", spec.kind);
    set_string(net.get(), "activation", activation_name(spec.activation));
    set_string(net.get(), "dtype", dtype_name(spec.dtype));
    set_int(net.get(), "in", spec.in);
    set_int(net.get(), "out", spec.out);
    std::vector<std::int64_t> hidden(spec.hidden.begin(), spec.hidden.end());
    write_array(net.get(), "hidden", {static_cast<hsize_t>(hidden.size())}, H5T_STD_I64LE,
                H5T_NATIVE_INT64, hidden.data());

    Hid params = make_group(f, "parameters");
    std::vector<std::string> names;
    const auto named = s.network().named_parameters();
    for (size_t k = 0; k < named.size(); ++k) {
      const std::string& name = named[k].first;
      names.push_back(name);
      const Tensor& t = named[k].second.value();
      std::vector<hsize_t> dims;
      for (index_t e : t.shape()) dims.push_back(static_cast<hsize_t>(e));
      if (s.quantized() && k % 2 == 0) {  // an int8 layer's weights: 1 byte each
        const std::vector<std::int8_t>& q = s.int8_layers()[k / 2].values;
        write_array(params.get(), name.c_str(), dims, H5T_STD_I8LE, H5T_NATIVE_SCHAR, q.data());
        continue;
      }
      const std::vector<double> v = t.to(DType::float64).to_vector();
      // Stored in the network's dtype: float32 weights take 4 bytes each.
      write_array(params.get(), name.c_str(), dims,
                  t.dtype() == DType::float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                  v.data());
    }
    set_string(params.get(), "order", detail::join_lines(names));
    if (s.quantized()) {
      Hid q = make_group(f, "quantization");
      set_string(q.get(), "kind", "int8");
      // All layers' scales in two datasets (each HDF5 object costs ~1 KB).
      std::vector<double> input_scales, weight_scales;
      for (const Int8Layer& l : s.int8_layers()) {
        input_scales.push_back(l.input_scale);
        weight_scales.insert(weight_scales.end(), l.scales.begin(), l.scales.end());
      }
      write_doubles(q.get(), "input_scale", input_scales);
      write_doubles(q.get(), "weight_scale", weight_scales);
    }

    write_columns(f, "inputs", s.inputs(), s.input_stats());
    write_columns(f, "outputs", s.outputs(), s.output_stats());

    Hid c = make_group(f, "card");
    set_string(c.get(), "data_path", card.data_path);
    set_string(c.get(), "data_sha256", card.data_sha256);
    set_int(c.get(), "data_rows", card.data_rows);
    set_int(c.get(), "epochs", card.epochs);
    set_string(c.get(), "training_deck", card.training_deck);
    set_string(c.get(), "created", card.created);
    set_string(c.get(), "camber_version", card.camber_version);
    set_string(c.get(), "git_revision", card.git_revision);
    set_int(c.get(), "validation_rows", card.validation_rows);
    write_doubles(c.get(), "validation_rmse", card.validation_rmse);
    if (!card.input_min.empty()) {
      write_doubles(c.get(), "input_min", card.input_min);
      write_doubles(c.get(), "input_max", card.input_max);
    }
    set_string(c.get(), "extrapolation", std::string(enum_name(extrapolation_names, card.extrapolation)));
    set_real(c.get(), "extrapolation_margin", card.extrapolation_margin);
    c.close();
    params.close();
    net.close();
    file.close();
  }
  seal(tmp);
  commit_file(tmp, path);
}

Model load_model(const std::string& path) {
  camber::io::detail::silence_hdf5_errors();
  // With trusted keys configured the file is read once, checked against its
  // signature, and HDF5 parses those bytes (a file image), never the file
  // again: no byte that was not verified reaches the parser.
  const trust::TrustedKeys& keys = trust::TrustedKeys::environment();
  std::string image;
  if (!keys.empty()) image = trust::read_verified(path, "model file", keys);
  const Header h = check_header(path, keys.empty() ? nullptr : &image);
  Hid fapl(CAMBER_CHECK_HDF5(H5Pcreate(H5P_FILE_ACCESS)), H5Pclose);
  if (!keys.empty()) {
    CAMBER_CHECK_HDF5(H5Pset_fapl_core(fapl.get(), 1 << 20, /*backing_store=*/0));
    CAMBER_CHECK_HDF5(H5Pset_file_image(fapl.get(), image.data(), image.size()));
  }
  // The core driver takes an image only under a name that is no file (it
  // refuses to shadow one); /dev/null/... can never be one.
  const std::string open_name = keys.empty() ? path : "/dev/null/camber-verified-model";
  Hid file(H5Fopen(open_name.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  CAMBER_INPUT_REQUIRE(file.valid(), "model file '" << path << "': HDF5 cannot open it: "
                                                     << camber::io::detail::hdf5_error_stack());
  Reader r{path, file.get(), h.bytes};
  CAMBER_INPUT_REQUIRE(r.string("", "format") == model_format,
                       "'" << path << "' is not a Camber model (format '" << r.string("", "format")
                           << "')");
  const std::int64_t version = r.integer("", "version");
  CAMBER_INPUT_REQUIRE(version == model_version, "model file '" << path << "' has format version "
                                                                 << version << ", this build reads "
                                                                 << model_version);
  NetworkSpec spec;
  spec.kind = r.string("network", "kind");
  spec.activation = activation_from_name(r.string("network", "activation"));
  const std::string dt = r.string("network", "dtype");
  CAMBER_INPUT_REQUIRE(dt == "float64" || dt == "float32",
                       path << ": /network dtype '" << dt << "' (float64, float32)");
  spec.dtype = dt == "float32" ? DType::float32 : DType::float64;
  spec.in = r.integer("network", "in");
  spec.out = r.integer("network", "out");
  std::vector<hsize_t> dims;
  for (double w : r.numbers("network/hidden", &dims, H5T_INTEGER))
    spec.hidden.push_back(static_cast<index_t>(w));
  CAMBER_INPUT_REQUIRE(spec.in > 0 && spec.out > 0 && spec.in <= 1000000 && spec.out <= 1000000,
                       path << ": /network in " << spec.in << ", out " << spec.out);
  try {
    check_spec(spec);
  } catch (const Error& e) {
    CAMBER_INPUT_REQUIRE(false, path << ": " << e.what());
  }
  // Every parameter takes at least a byte of the file: a network asking for
  // more is a corrupt description (and building it would exhaust memory).
  double n_params = 0.0, fan_in = static_cast<double>(spec.in);
  const auto layer = [&](double out) {
    n_params += fan_in * out + out;
    fan_in = out;
  };
  if (spec.kind == "residual_mlp") {
    layer(static_cast<double>(spec.hidden[0]));
    for (size_t b = 1; b < spec.hidden.size(); ++b) {
      layer(static_cast<double>(spec.hidden[0]));
      layer(static_cast<double>(spec.hidden[0]));
    }
  } else {
    for (index_t w : spec.hidden) layer(static_cast<double>(w));
  }
  layer(static_cast<double>(spec.out));
  CAMBER_INPUT_REQUIRE(n_params <= static_cast<double>(h.bytes),
                       path << ": /network describes " << n_params << " parameters, more than the "
                            << h.bytes << " bytes of the file hold");

  // The parameters, in the order the network registers them.
  Rng rng(0);
  const auto named = make_network(spec, rng)->named_parameters();
  const std::vector<std::string> order =
      detail::split_lines(r.string("parameters", "order"));
  CAMBER_INPUT_REQUIRE(order.size() == named.size(), path << ": " << order.size()
                                                          << " parameters, the network has "
                                                          << named.size());
  const bool int8 = r.has_link("quantization");
  if (int8) {
    CAMBER_INPUT_REQUIRE(r.string("quantization", "kind") == "int8",
                         path << ": /quantization kind '" << r.string("quantization", "kind")
                              << "' (int8)");
    CAMBER_INPUT_REQUIRE(spec.dtype == DType::float32,
                         path << ": an int8 model's network must be float32, not " << dt);
  }
  std::vector<Int8Layer> layers;
  const std::vector<double> input_scales =
      int8 ? r.vector("quantization/input_scale", named.size() / 2) : std::vector<double>();
  std::size_t n_scales = 0;
  for (size_t k = 0; int8 && k < named.size(); k += 2)
    n_scales += static_cast<size_t>(named[k].second.value().shape().back());
  const std::vector<double> weight_scales =
      int8 ? r.vector("quantization/weight_scale", n_scales) : std::vector<double>();
  for (size_t j = 0; j < input_scales.size(); ++j)
    CAMBER_INPUT_REQUIRE(std::isfinite(input_scales[j]) && input_scales[j] > 0.0,
                         path << ": /quantization/input_scale[" << j << "] is " << input_scales[j]
                              << "; a scale is finite and > 0");
  for (size_t j = 0; j < weight_scales.size(); ++j)
    CAMBER_INPUT_REQUIRE(std::isfinite(weight_scales[j]) && weight_scales[j] > 0.0,
                         path << ": /quantization/weight_scale[" << j << "] is " << weight_scales[j]
                              << "; a scale is finite and > 0");
  std::size_t scale_at = 0;
  std::vector<Tensor> values;
  for (size_t k = 0; k < named.size(); ++k) {
    CAMBER_INPUT_REQUIRE(order[k] == named[k].first, path << ": parameter " << k << " is '"
                                                          << order[k] << "', the network's is '"
                                                          << named[k].first << "'");
    std::size_t bytes = 0;
    if (int8 && k % 2 == 0) {
      const std::vector<double> v = r.numbers("parameters/" + order[k], &dims, H5T_INTEGER, &bytes);
      Shape shape;
      for (hsize_t e : dims) shape.push_back(static_cast<index_t>(e));
      CAMBER_INPUT_REQUIRE(shape == named[k].second.value().shape() && bytes == 1,
                           path << ": int8 weights '" << order[k] << "' have shape "
                                << shape_string(shape) << " in " << bytes
                                << "-byte integers, the network's is "
                                << shape_string(named[k].second.value().shape()) << " in int8");
      Int8Layer q;
      for (double x : v) q.values.push_back(static_cast<std::int8_t>(x));
      q.scales.assign(weight_scales.begin() + static_cast<std::ptrdiff_t>(scale_at),
                      weight_scales.begin() + static_cast<std::ptrdiff_t>(scale_at + static_cast<size_t>(shape.back())));
      scale_at += static_cast<size_t>(shape.back());
      q.input_scale = input_scales[k / 2];
      layers.push_back(std::move(q));
      values.push_back(Tensor::from_host(shape, v).to(DType::float32));
      continue;
    }
    const std::vector<double> v = r.numbers("parameters/" + order[k], &dims, H5T_FLOAT, &bytes);
    Shape shape;
    for (hsize_t e : dims) shape.push_back(static_cast<index_t>(e));
    const Shape& want = named[k].second.value().shape();
    CAMBER_INPUT_REQUIRE(shape == want, path << ": parameter '" << order[k] << "' has shape "
                                             << shape_string(shape) << ", the network's is "
                                             << shape_string(want));
    CAMBER_INPUT_REQUIRE(bytes == (spec.dtype == DType::float32 ? 4u : 8u),
                         path << ": parameter '" << order[k] << "' is stored in " << bytes
                              << "-byte floats, the network is " << dt);
    check_finite(v, path + ": /parameters/" + order[k]);
    values.push_back(Tensor::from_host(shape, v).to(spec.dtype));
  }
  Columns in, out;
  Normalization in_stats, out_stats;
  read_columns(r, "inputs", spec.in, &in, &in_stats);
  read_columns(r, "outputs", spec.out, &out, &out_stats);
  check_names(in, path + ": /inputs");
  check_names(out, path + ": /outputs");
  check_stats(in, in_stats, path + ": /inputs");
  check_stats(out, out_stats, path + ": /outputs");

  ModelCard card;
  card.data_path = r.string("card", "data_path");
  card.data_sha256 = r.string("card", "data_sha256");
  card.data_rows = r.integer("card", "data_rows");
  card.epochs = r.integer("card", "epochs");
  card.training_deck = r.string("card", "training_deck");
  card.created = r.string("card", "created");
  card.camber_version = r.string("card", "camber_version");
  card.git_revision = r.string("card", "git_revision");
  card.validation_rows = r.integer("card", "validation_rows");
  card.validation_rmse = r.numbers("card/validation_rmse", &dims, H5T_FLOAT);
  CAMBER_INPUT_REQUIRE(card.validation_rmse.empty() ||
                           static_cast<index_t>(card.validation_rmse.size()) == spec.out,
                       path << ": " << card.validation_rmse.size() << " validation errors for "
                            << spec.out << " outputs");
  // Files written before the training range was recorded have none of
  // these entries: an empty range, the default policy.
  if (r.has_link("card/input_min") || r.has_link("card/input_max")) {
    card.input_min = r.vector("card/input_min", static_cast<size_t>(spec.in));
    card.input_max = r.vector("card/input_max", static_cast<size_t>(spec.in));
  }
  if (r.has_attribute("card", "extrapolation")) {
    try {
      card.extrapolation = enum_from_name(extrapolation_names, r.string("card", "extrapolation"),
                                          "extrapolation policy");
    } catch (const Error& e) {
      CAMBER_INPUT_REQUIRE(false, path << ": /card " << printable_text(e.message()));
    }
  }
  if (r.has_attribute("card", "extrapolation_margin"))
    card.extrapolation_margin = r.real("card", "extrapolation_margin");
  check_card(card, path + ": /card");
  check_range(card, in, path + ": /card");
  file.close();
  // What the surrogate still refuses is named with the file.
  try {
    return Model{Surrogate(spec, values, in, out, in_stats, out_stats, std::move(layers)), card,
                 version, h.bytes, h.sha256};
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::bad_input) throw;
    throw_bad_input(path + ": " + e.message());
  }
}

std::string describe_model(const Model& m, const std::string& path) {
  const Surrogate& s = m.surrogate;
  const NetworkSpec& spec = s.spec();
  std::ostringstream o;
  // Every text from the file is shown through printable_text: a card
  // cannot send escape sequences to the terminal.
  const auto& p = printable_text;
  auto column = [&](const Columns& c, size_t j) {
    return p(c.names[j]) + (c.units[j].empty() ? "" : " [" + p(c.units[j]) + "]");
  };
  o << "model          " << p(path) << "\n"
    << "format         " << model_format << " version " << m.format_version << ", " << m.file_bytes
    << " bytes, sha256 " << m.sha256 << "\n"
    << "network        " << s.network().describe() << "\n"
    << "parameters     " << s.network().num_parameters() << " ("
    << (s.quantized() ? "int8 weights per output channel, int8 layer inputs, float32 biases"
                      : dtype_name(spec.dtype))
    << ")\n"
    << "inputs         ";
  for (size_t j = 0; j < s.inputs().names.size(); ++j)
    o << (j ? ", " : "") << column(s.inputs(), j) << " (mean " << s.input_stats().mean[j]
      << ", std " << s.input_stats().stddev[j] << ")";
  o << "\ninput range    ";
  if (m.card.input_min.empty()) {
    o << "not recorded (inputs are checked for finiteness only)";
  } else {
    for (size_t j = 0; j < s.inputs().names.size(); ++j)
      o << (j ? ", " : "") << p(s.inputs().names[j]) << " [" << m.card.input_min[j] << ", "
        << m.card.input_max[j] << "]";
    o << "; extrapolation " << enum_name(extrapolation_names, m.card.extrapolation);
    if (m.card.extrapolation_margin > 0.0) o << ", margin " << m.card.extrapolation_margin << " of the width";
  }
  o << "\noutputs        ";
  for (size_t j = 0; j < s.outputs().names.size(); ++j)
    o << (j ? ", " : "") << column(s.outputs(), j) << " (mean " << s.output_stats().mean[j]
      << ", std " << s.output_stats().stddev[j] << ")";
  const ModelCard& c = m.card;
  o << "\ntraining data  " << (c.data_path.empty() ? "-" : p(c.data_path)) << ", " << c.data_rows
    << " rows, sha256 " << (c.data_sha256.empty() ? "-" : p(c.data_sha256)) << "\n"
    << "epochs         " << c.epochs << "\n";
  if (!c.validation_rmse.empty()) {
    o << "validation     " << c.validation_rows << " rows, RMSE ";
    for (size_t j = 0; j < c.validation_rmse.size(); ++j)
      o << (j ? ", " : "") << p(s.outputs().names[j]) << " " << std::setprecision(4)
        << c.validation_rmse[j]
        << (s.outputs().units[j].empty() ? "" : " " + p(s.outputs().units[j]));
    o << "\n";
  } else {
    o << "validation     none\n";
  }
  o << "created        " << p(c.created) << "\n"
    << "camber         " << p(c.camber_version)
    << (c.git_revision.empty() ? "" : " (" + p(c.git_revision) + ")") << "\n";
  if (!c.training_deck.empty()) {
    o << "training deck\n";
    std::istringstream lines(c.training_deck);
    std::string line;
    while (std::getline(lines, line)) o << "  | " << p(line) << "\n";
  }
  return o.str();
}

}  // namespace camber::nn::io
