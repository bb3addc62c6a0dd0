// The native model file: a saved surrogate loads with bitwise-equal
// predictions and its card intact (float64 and float32, MLP and residual
// MLP); float32 weights take half the bytes; every damaged file (missing,
// not a model, an HDF5 file without the header, cut short, bytes appended,
// one byte changed, a newer format version) is bad input whose message
// names the file and the fault. A card or arrays edited after saving
// (names empty or repeated, negative counts, a zero std, a NaN weight, an
// infinite mean, a NaN RMSE, a training range with min > max or a NaN
// bound, an unknown extrapolation policy, a negative margin) is refused
// naming the file and the field, and what model-info prints cannot carry
// terminal escapes. The training range and extrapolation policy round
// trip; a file written before they were recorded loads with no range.
#include <gtest/gtest.h>

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include <filesystem>
#include <fstream>
#include <system_error>

#include <unistd.h>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/quantize.hpp>

#include "scratch.hpp"

namespace {

namespace nn = camber::nn;
namespace fs = std::filesystem;
using camber::DType;
using camber::index_t;
using camber::Tensor;

fs::path scratch() { return camber::test::scratch("camber_model_file_"); }

nn::Surrogate make(const std::string& kind, DType dt) {
  nn::NetworkSpec spec;
  spec.kind = kind;
  spec.in = 2;
  spec.out = 3;
  spec.hidden = {16, 16};
  spec.activation = nn::Activation::silu;
  spec.dtype = dt;
  nn::Rng rng(4);
  auto net = nn::make_network(spec, rng);
  nn::Columns in{{"Mach", "alpha"}, {"", "deg"}}, out{{"CL", "CD", "CM"}, {"", "", ""}};
  nn::Normalization si{{0.6, 2.0}, {0.1, 1.5}}, so{{0.3, 0.01, -0.02}, {0.2, 0.005, 0.01}};
  return nn::Surrogate(spec, net->parameter_values(), in, out, si, so);
}

nn::io::ModelCard card() {
  nn::io::ModelCard c;
  c.data_path = "out/samples.h5";
  c.data_sha256 = std::string(64, 'a');
  c.data_rows = 120;
  c.epochs = 300;
  c.training_deck = "case: demo\nproblem: surrogate\n";
  c.validation_rows = 24;
  c.validation_rmse = {2.5e-3, 1e-4, 3e-4};
  c.git_revision = "abc1234";
  c.input_min = {0.4, -3.0};
  c.input_max = {0.8, 5.0};
  c.extrapolation = nn::io::Extrapolation::allow;
  c.extrapolation_margin = 0.25;
  return c;
}

std::string error_of(const std::string& path) {
  try {
    nn::io::load_model(path);
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << path << " loaded";
  return "";
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(ModelFile, RoundTripKeepsPredictionsAndCard) {
  const fs::path dir = scratch();
  const Tensor x = Tensor::from_host({4, 2}, {0.5, 1.0, 0.7, -2.0, 0.62, 3.5, 0.8, 0.0});
  for (const char* kind : {"mlp", "residual_mlp"})
    for (DType dt : {DType::float64, DType::float32}) {
      const nn::Surrogate s = make(kind, dt);
      const std::string path = (dir / (std::string(kind) + "_" + camber::dtype_name(dt) + ".h5")).string();
      nn::io::save_model(path, s, card());
      EXPECT_FALSE(fs::exists(path + ".tmp"));
      const nn::io::Model m = nn::io::load_model(path);
      EXPECT_EQ(m.surrogate.predict(x).to_vector(), s.predict(x).to_vector()) << kind;
      EXPECT_EQ(m.surrogate.spec().kind, kind);
      EXPECT_EQ(m.surrogate.spec().dtype, dt);
      EXPECT_EQ(m.surrogate.spec().hidden, (std::vector<index_t>{16, 16}));
      EXPECT_EQ(m.surrogate.inputs().names, s.inputs().names);
      EXPECT_EQ(m.surrogate.inputs().units, s.inputs().units);
      EXPECT_EQ(m.surrogate.output_stats().stddev, s.output_stats().stddev);
      const nn::io::ModelCard c = card();
      EXPECT_EQ(m.card.data_path, c.data_path);
      EXPECT_EQ(m.card.data_sha256, c.data_sha256);
      EXPECT_EQ(m.card.training_deck, c.training_deck);
      EXPECT_EQ(m.card.validation_rmse, c.validation_rmse);
      EXPECT_EQ(m.card.epochs, 300);
      EXPECT_EQ(m.card.git_revision, "abc1234");
      EXPECT_EQ(m.card.input_min, c.input_min);
      EXPECT_EQ(m.card.input_max, c.input_max);
      EXPECT_EQ(m.card.extrapolation, nn::io::Extrapolation::allow);
      EXPECT_EQ(m.card.extrapolation_margin, 0.25);
      EXPECT_EQ(m.card.created.size(), 20u) << m.card.created;  // 2026-12-01T00:00:00Z
      EXPECT_FALSE(m.card.camber_version.empty());
      EXPECT_EQ(m.file_bytes, fs::file_size(path));
      const std::string text = nn::io::describe_model(m, path);
      EXPECT_NE(text.find("alpha [deg]"), std::string::npos) << text;
      EXPECT_NE(text.find("  | problem: surrogate"), std::string::npos) << text;
      EXPECT_NE(text.find("input range    Mach [0.4, 0.8], alpha [-3, 5]; extrapolation allow, margin 0.25"),
                std::string::npos) << text;
    }
  // 2x16 + 16 + 16x16 + 16 + 16x3 + 3 = 371 weights: at least 4 bytes fewer
  // each in float32 (HDF5's own layout may differ by a block as well).
  const auto f64 = fs::file_size(dir / "mlp_float64.h5"), f32 = fs::file_size(dir / "mlp_float32.h5");
  EXPECT_GE(f64, f32 + 371u * 4u);
}

TEST(ModelFile, Int8ModelsRoundTripAtOneBytePerWeight) {
  const fs::path dir = scratch();
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 3;
  spec.hidden = {64, 64};
  spec.dtype = DType::float32;
  nn::Rng rng(2);
  auto net = nn::make_network(spec, rng);
  const nn::Surrogate f(spec, net->parameter_values(), {{"Mach", "alpha"}, {"", "deg"}},
                        {{"CL", "CD", "CM"}, {"", "", ""}}, {{0.6, 2.0}, {0.1, 1.5}},
                        {{0.3, 0.01, -0.02}, {0.2, 0.005, 0.01}});
  const Tensor calib = nn::uniform({64, 2}, -1.0, 3.0, rng);
  const nn::Surrogate q = nn::quantize_int8(f, calib);
  const std::string fp = (dir / "f32.h5").string(), qp = (dir / "int8.h5").string();
  nn::io::save_model(fp, f, card());
  nn::io::save_model(qp, q, card());
  const nn::io::Model m = nn::io::load_model(qp);
  ASSERT_TRUE(m.surrogate.quantized());
  EXPECT_EQ(m.surrogate.predict(calib).to_vector(), q.predict(calib).to_vector());
  EXPECT_EQ(m.surrogate.int8_layers()[1].values, q.int8_layers()[1].values);
  EXPECT_EQ(m.surrogate.int8_layers()[2].scales, q.int8_layers()[2].scales);
  EXPECT_EQ(m.surrogate.int8_layers()[2].input_scale, q.int8_layers()[2].input_scale);
  // 2x64 + 64x64 + 64x3 = 4416 weights stored at 1 byte instead of 4. The
  // files differ by that less the quantization group (a group and two
  // small datasets) and what HDF5's metadata allocation (2 KiB blocks, a
  // group's heap doubled as it grows) makes of everything else in the file,
  // the card included: a few KB either way, so at least 1 of the 3 bytes
  // per weight.
  const auto weight_bytes = [&](const std::string& path) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t bytes = 0;
    const auto named = f.network().named_parameters();
    for (size_t k = 0; k < named.size(); k += 2) {
      const hid_t d = H5Dopen2(file, ("/parameters/" + named[k].first).c_str(), H5P_DEFAULT);
      bytes += H5Dget_storage_size(d);
      H5Dclose(d);
    }
    H5Fclose(file);
    return bytes;
  };
  EXPECT_EQ(weight_bytes(fp), 4416u * 4u);
  EXPECT_EQ(weight_bytes(qp), 4416u);
  EXPECT_GE(fs::file_size(fp), fs::file_size(qp) + 4416u)
      << fs::file_size(fp) << " " << fs::file_size(qp);
  EXPECT_NE(nn::io::describe_model(m, qp).find("int8 weights per output channel"), std::string::npos);
}

TEST(ModelFile, DamagedFilesAreBadInputNamingTheFault) {
  const fs::path dir = scratch();
  const std::string good = (dir / "good.h5").string();
  nn::io::save_model(good, make("mlp", DType::float64), card());
  const std::string bytes = read_bytes(good);

  EXPECT_NE(error_of((dir / "nowhere.h5").string()).find("no such file"), std::string::npos);

  write_bytes(dir / "text.h5", "hello, not a model\n");
  EXPECT_NE(error_of((dir / "text.h5").string()).find("not a Camber model"), std::string::npos);

  // An HDF5 file of another kind: a data set.
  const std::string data = (dir / "data.h5").string();
  nn::io::write_dataset(data, Tensor::from_host({2, 1}, {1.0, 2.0}), Tensor::from_host({2, 1}, {3.0, 4.0}),
                    {{"a"}, {""}}, {{"b"}, {""}}, MPI_COMM_WORLD);
  EXPECT_NE(error_of(data).find("an HDF5 file without the model header"), std::string::npos);

  write_bytes(dir / "cut.h5", bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(error_of((dir / "cut.h5").string()).find("is truncated"), std::string::npos);
  write_bytes(dir / "cut_header.h5", bytes.substr(0, 100));
  EXPECT_NE(error_of((dir / "cut_header.h5").string()).find("is truncated"), std::string::npos);

  write_bytes(dir / "appended.h5", bytes + "xyz");
  EXPECT_NE(error_of((dir / "appended.h5").string()).find("data appended"), std::string::npos);

  // One byte changed anywhere after the header, e.g. in a weight.
  for (size_t at : {size_t{600}, bytes.size() / 2, bytes.size() - 1}) {
    std::string t = bytes;
    t[at] = static_cast<char>(t[at] ^ 0x01);
    write_bytes(dir / "tampered.h5", t);
    EXPECT_NE(error_of((dir / "tampered.h5").string()).find("fails its checksum"), std::string::npos)
        << "byte " << at;
  }

  std::string v2 = bytes;
  v2[std::string("CAMBER-MODEL ").size()] = '2';
  write_bytes(dir / "v2.h5", v2);
  EXPECT_NE(error_of((dir / "v2.h5").string()).find("format version 2"), std::string::npos);

  std::string header = bytes;
  header[20] = 'Q';  // inside "bytes <n>"
  write_bytes(dir / "header.h5", header);
  EXPECT_NE(error_of((dir / "header.h5").string()).find("corrupt header"), std::string::npos);
}

TEST(ModelFile, Sha256OfAKnownInput) {
  // FIPS 180-2, appendix B.1: SHA-256("abc").
  const fs::path p = scratch() / "abc.txt";
  write_bytes(p, "abc");
  EXPECT_EQ(nn::io::sha256_file(p.string()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// Edits a saved model with HDF5 calls, then writes its header again for the
// new bytes (format 1: magic and version, size, SHA-256 of what follows the
// 512-byte userblock), as someone who knows the format would.
void edit_model(const std::string& path, const std::function<void(hid_t)>& edit) {
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0) << path;
    edit(file);
    ASSERT_GE(H5Fclose(file), 0);
  }
  const std::string bytes = read_bytes(path);
  const fs::path body = fs::path(path + ".body");
  write_bytes(body, bytes.substr(512));
  std::string header = "CAMBER-MODEL 1\nbytes " + std::to_string(bytes.size()) + "\nsha256 " +
                       nn::io::sha256_file(body.string()) + "\n";
  header.resize(512, '\0');
  write_bytes(path, header + bytes.substr(512));
  fs::remove(body);
}

void set_string_attribute(hid_t file, const char* object, const char* name, const std::string& v) {
  const hid_t o = H5Oopen(file, object, H5P_DEFAULT);
  ASSERT_GE(H5Adelete(o, name), 0) << object << " " << name;
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, std::max<std::size_t>(v.size(), 1));
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(o, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const std::string padded = v.empty() ? std::string(1, '\0') : v;
  EXPECT_GE(H5Awrite(a, type, padded.data()), 0);
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  H5Oclose(o);
}

void set_int_attribute(hid_t file, const char* object, const char* name, std::int64_t v) {
  const hid_t o = H5Oopen(file, object, H5P_DEFAULT);
  const hid_t a = H5Aopen(o, name, H5P_DEFAULT);
  EXPECT_GE(H5Awrite(a, H5T_NATIVE_INT64, &v), 0) << object << " " << name;
  H5Aclose(a);
  H5Oclose(o);
}

void set_real_attribute(hid_t file, const char* object, const char* name, double v) {
  const hid_t o = H5Oopen(file, object, H5P_DEFAULT);
  const hid_t a = H5Aopen(o, name, H5P_DEFAULT);
  EXPECT_GE(H5Awrite(a, H5T_NATIVE_DOUBLE, &v), 0) << object << " " << name;
  H5Aclose(a);
  H5Oclose(o);
}

// Entry i (in row-major order) of a dataset of numbers set to v.
void set_entry(hid_t file, const std::string& dataset, hsize_t i, double v) {
  const hid_t d = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  ASSERT_GE(d, 0) << dataset;
  const hid_t space = H5Dget_space(d);
  std::vector<double> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  values.at(static_cast<std::size_t>(i)) = v;
  EXPECT_GE(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0)
      << dataset;
  H5Sclose(space);
  H5Dclose(d);
}

TEST(ModelFile, EditedCardsAndArraysAreRefusedNamingTheField) {
  const fs::path dir = scratch();
  const nn::Surrogate s = make("mlp", DType::float64);
  const std::string weights = "/parameters/" + s.network().named_parameters()[0].first;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* file;
    std::function<void(hid_t)> edit;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {"repeated.h5", [](hid_t f) { set_string_attribute(f, "inputs", "names", "Mach\nMach"); },
       {"/inputs names: 'Mach' names columns 0 and 1"}},
      {"empty_name.h5", [](hid_t f) { set_string_attribute(f, "inputs", "names", "\nalpha"); },
       {"/inputs names: column 0 has an empty name"}},
      {"escape_name.h5",
       [](hid_t f) { set_string_attribute(f, "outputs", "names", "CL\nCD\x1b[2J\nCM"); },
       {"/outputs names: column 1 ('CD\\x1b[2J') has control characters"}},
      {"epochs.h5", [](hid_t f) { set_int_attribute(f, "card", "epochs", -5); },
       {"/card epochs is -5; a count is >= 0"}},
      {"rows.h5", [](hid_t f) { set_int_attribute(f, "card", "data_rows", -1); },
       {"/card data_rows is -1"}},
      {"std.h5", [](hid_t f) { set_entry(f, "/inputs/std", 1, 0.0); },
       {"/inputs/std[1] ('alpha') is 0; a standard deviation must be finite and > 0"}},
      {"mean.h5", [=](hid_t f) { set_entry(f, "/outputs/mean", 2, inf); },
       {"/outputs/mean[2] ('CM') is inf, not a finite number"}},
      {"weight.h5", [=](hid_t f) { set_entry(f, weights, 3, nan); },
       {weights + "[3] is nan, not a finite number"}},
      {"rmse.h5", [=](hid_t f) { set_entry(f, "/card/validation_rmse", 0, nan); },
       {"/card/validation_rmse[0] is nan; an RMSE is finite and >= 0"}},
      {"range.h5", [](hid_t f) { set_entry(f, "/card/input_min", 1, 10.0); },
       {"/card training range of input 1 ('alpha') is [10, 5]; it must be finite, min <= max"}},
      {"range_nan.h5", [=](hid_t f) { set_entry(f, "/card/input_max", 0, nan); },
       {"/card training range of input 0 ('Mach') is [0.4, nan]"}},
      {"policy.h5", [](hid_t f) { set_string_attribute(f, "card", "extrapolation", "sometimes"); },
       {"/card unknown extrapolation policy 'sometimes'; valid: refuse, allow"}},
      {"margin.h5", [](hid_t f) { set_real_attribute(f, "card", "extrapolation_margin", -1.0); },
       {"/card extrapolation_margin is -1; a margin is finite and >= 0"}},
  };
  for (const Case& c : cases) {
    const std::string path = (dir / c.file).string();
    nn::io::save_model(path, s, card());
    ASSERT_NO_THROW(nn::io::load_model(path)) << c.file;
    edit_model(path, c.edit);
    const std::string message = error_of(path);  // bad_input naming the file
    for (const std::string& piece : c.says)
      EXPECT_NE(message.find(path + ": " + piece), std::string::npos) << message;
  }
  // The library refuses to write what it would refuse to read.
  nn::io::ModelCard negative = card();
  negative.epochs = -1;
  EXPECT_THROW(nn::io::save_model((dir / "negative.h5").string(), s, negative), camber::Error);
  EXPECT_FALSE(fs::exists(dir / "negative.h5"));
  nn::io::ModelCard short_range = card();
  short_range.input_max.pop_back();
  EXPECT_THROW(nn::io::save_model((dir / "short_range.h5").string(), s, short_range), camber::Error);
  EXPECT_FALSE(fs::exists(dir / "short_range.h5"));
}

TEST(ModelFile, AFileWithoutATrainingRangeLoadsWithNone) {
  // As a file written before the range and policy were recorded: the
  // entries removed.
  const fs::path dir = scratch();
  const std::string path = (dir / "no_range.h5").string();
  nn::io::save_model(path, make("mlp", DType::float64), card());
  edit_model(path, [](hid_t f) {
    EXPECT_GE(H5Ldelete(f, "/card/input_min", H5P_DEFAULT), 0);
    EXPECT_GE(H5Ldelete(f, "/card/input_max", H5P_DEFAULT), 0);
    EXPECT_GE(H5Adelete_by_name(f, "card", "extrapolation", H5P_DEFAULT), 0);
    EXPECT_GE(H5Adelete_by_name(f, "card", "extrapolation_margin", H5P_DEFAULT), 0);
  });
  const nn::io::Model m = nn::io::load_model(path);
  EXPECT_TRUE(m.card.input_min.empty());
  EXPECT_TRUE(m.card.input_max.empty());
  EXPECT_EQ(m.card.extrapolation, nn::io::Extrapolation::refuse);
  EXPECT_EQ(m.card.extrapolation_margin, 0.0);
  const std::string text = nn::io::describe_model(m, path);
  EXPECT_NE(text.find("input range    not recorded (inputs are checked for finiteness only)"),
            std::string::npos) << text;
  // One bound without the other is a damaged file, not an old one.
  const std::string half = (dir / "half_range.h5").string();
  nn::io::save_model(half, make("mlp", DType::float64), card());
  edit_model(half, [](hid_t f) { EXPECT_GE(H5Ldelete(f, "/card/input_max", H5P_DEFAULT), 0); });
  EXPECT_NE(error_of(half).find("missing dataset 'card/input_max'"), std::string::npos);
}

TEST(ModelFile, ModelInfoShowsNoTerminalEscapes) {
  // Printable ASCII, tabs and UTF-8 pass; ESC, DEL, a C1 control (U+009B,
  // CSI) and a lone byte of malformed UTF-8 are shown as \xNN.
  EXPECT_EQ(nn::io::printable_text("alpha\t[\xc2\xb0] \xe2\x82\xac"), "alpha\t[\xc2\xb0] \xe2\x82\xac");
  EXPECT_EQ(nn::io::printable_text("a\x1b[31mb\x7f"), "a\\x1b[31mb\\x7f");
  EXPECT_EQ(nn::io::printable_text("\xc2\x9b" "2J"), "\\xc2\\x9b2J");
  EXPECT_EQ(nn::io::printable_text("\xff\xc3"), "\\xff\\xc3");
  EXPECT_EQ(nn::io::printable_text("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");  // overlong '/'

  const fs::path dir = scratch();
  nn::io::ModelCard c = card();
  c.data_path = "out/\x1b]0;owned\x07samples.h5";
  c.training_deck = "case: demo\n\x1b[2Jproblem: surrogate\n";
  c.git_revision = "abc\x9b" "1234";
  const std::string path = (dir / "escapes.h5").string();
  nn::io::save_model(path, make("mlp", DType::float64), c);
  const std::string text = nn::io::describe_model(nn::io::load_model(path), path);
  for (char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    EXPECT_TRUE(b == '\n' || b == '\t' || (b >= 0x20 && b < 0x7f) || b >= 0xa0 || (b >= 0x80 && b < 0xc0))
        << "byte " << int{b} << " in:\n" << text;
    EXPECT_NE(b, 0x1b);
    EXPECT_NE(b, 0x07);
  }
  EXPECT_NE(text.find("out/\\x1b]0;owned\\x07samples.h5"), std::string::npos) << text;
  EXPECT_NE(text.find("  | \\x1b[2Jproblem: surrogate"), std::string::npos) << text;
  EXPECT_NE(text.find("abc\\x9b1234"), std::string::npos) << text;
}

}  // namespace
