// The model registry (nn/registry): versions, stages and content-addressed
// files. Versions count up per name; the same file registered again is the
// same version; staging and prod hold one version each (promoting one
// archives the one before); a blob is the registered file byte for byte,
// read-only, shared by the names that registered it and removed with the
// last of them; a version in prod cannot be removed; references resolve
// by version, stage and latest, and every bad reference or missing entry
// is bad input naming it (and what the registry has). A signature is
// stored and recorded only once a trusted key verified it (a forged one
// never poisons the store, and a verified one repairs it); a refused
// registration leaves no blob.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/registry/registry.hpp>
#include <camber/trust/signature.hpp>

#include "scratch.hpp"

namespace {

namespace nn = camber::nn;
namespace reg = camber::nn::registry;
namespace fs = std::filesystem;
using camber::Tensor;

fs::path scratch() { return camber::test::scratch("camber_registry_"); }

// A small trained-looking model; `seed` changes its weights (and bytes).
std::string model_file(const std::string& name, std::uint64_t seed, double rmse,
                       const std::string& data_path = "samples.h5",
                       const std::string& data_sha256 = std::string(64, 'b')) {
  nn::NetworkSpec spec;
  spec.kind = "mlp";
  spec.in = 2;
  spec.out = 2;
  spec.hidden = {8};
  nn::Rng rng(seed);
  auto net = nn::make_network(spec, rng);
  nn::Surrogate s(spec, net->parameter_values(), {{"mach", "alpha"}, {"", "deg"}},
                  {{"CL", "CD"}, {"", ""}}, {{0.6, 2.0}, {0.1, 1.5}}, {{0.3, 0.01}, {0.2, 0.005}});
  nn::io::ModelCard c;
  c.data_path = data_path;
  c.data_sha256 = data_sha256;
  c.data_rows = 64;
  c.epochs = static_cast<std::int64_t>(seed);
  c.training_deck = "case: demo\nepochs: " + std::to_string(seed) + "\n";
  c.validation_rmse = {rmse, rmse / 10};
  const std::string path = (scratch() / name).string();
  nn::io::save_model(path, s, c);
  return path;
}

std::string bytes_of(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::string& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// The .h5 files in a store's blobs/ folder.
int blob_count(const reg::Registry& r) {
  int n = 0;
  for (const auto& f : fs::directory_iterator(fs::path(r.root()) / "blobs")) n += f.path().extension() == ".h5";
  return n;
}

template <class F>
std::string bad_input_of(F f) {
  try {
    f();
  } catch (const camber::Error& e) {
    return e.kind() == camber::ErrorKind::bad_input ? e.message() : "not bad_input: " + e.message();
  }
  return "";
}

TEST(Registry, VersionsStagesAndFiles) {
  const std::string a = model_file("a.h5", 1, 1e-3), b = model_file("b.h5", 2, 5e-4);
  reg::Registry r((scratch() / "store").string());
  const reg::Entry e1 = r.register_model(a, "naca");
  const reg::Entry e2 = r.register_model(b, "naca", reg::Stage::staging);
  EXPECT_EQ(e1.reference(), "naca@1");
  EXPECT_EQ(e2.reference(), "naca@2");
  EXPECT_EQ(e1.stage, reg::Stage::dev);
  EXPECT_EQ(e2.stage, reg::Stage::staging);
  EXPECT_EQ(r.register_model(a, "naca").version, 1) << "the same file is the same version";
  EXPECT_EQ(r.list("naca").size(), 2u);
  // The blob is the file, byte for byte, read-only, named by its content.
  EXPECT_EQ(bytes_of(e1.blob), bytes_of(a));
  EXPECT_EQ(fs::path(e1.blob).filename().string(), e1.sha256 + ".h5");
  struct stat st {};
  ASSERT_EQ(::stat(e1.blob.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0444u);
  // The card travels: epochs, deck, validation error per output.
  EXPECT_EQ(e2.epochs, 2);
  EXPECT_EQ(e2.training_deck, "case: demo\nepochs: 2\n");
  ASSERT_EQ(e2.validation_rmse.size(), 2u);
  EXPECT_DOUBLE_EQ(e2.validation_rmse[0], 5e-4);
  EXPECT_EQ(e2.outputs, (std::vector<std::string>{"CL", "CD"}));

  // Resolution.
  EXPECT_EQ(r.resolve(reg::parse_reference("naca")).version, 2);
  EXPECT_EQ(r.resolve(reg::parse_reference("naca@1")).version, 1);
  EXPECT_EQ(r.resolve(reg::parse_reference("naca@staging")).version, 2);
  // One prod at a time: promoting 2 archives 1.
  r.promote("naca", 1, reg::Stage::prod);
  EXPECT_EQ(r.resolve(reg::parse_reference("naca@prod")).version, 1);
  r.promote("naca", 2, reg::Stage::prod);
  EXPECT_EQ(r.resolve(reg::parse_reference("naca@prod")).version, 2);
  EXPECT_EQ(r.resolve(reg::parse_reference("naca@1")).stage, reg::Stage::archived);
  int prod = 0;
  for (const reg::Entry& e : r.list()) prod += e.stage == reg::Stage::prod;
  EXPECT_EQ(prod, 1);
  // What resolves loads, and predicts as the file registered.
  const nn::io::Model m = nn::io::load_model(reg::resolve_model_path("naca@prod", r.root()));
  const nn::io::Model direct = nn::io::load_model(b);
  const Tensor x = Tensor::from_host({1, 2}, {0.7, 1.0});
  EXPECT_EQ(m.surrogate.predict(x).to_vector(), direct.surrogate.predict(x).to_vector());
  EXPECT_EQ(reg::resolve_model_path(a, r.root()), a) << "a file is itself";

  // Removal: not from prod; a shared blob stays until its last user goes.
  EXPECT_NE(bad_input_of([&] { r.remove("naca", 2); }).find("naca@2 is in prod"), std::string::npos);
  r.register_model(a, "other");
  r.remove("naca", 1);
  EXPECT_TRUE(fs::exists(e1.blob)) << "other@1 still uses it";
  r.remove("other", 1);
  EXPECT_FALSE(fs::exists(e1.blob));
  EXPECT_EQ(r.list().size(), 1u);
  // Reopened, the index holds what was committed.
  reg::Registry again(r.root());
  EXPECT_EQ(again.list().size(), 1u);
  EXPECT_EQ(again.resolve(reg::parse_reference("naca@prod")).sha256, e2.sha256);
}

TEST(Registry, BadReferencesAndMissingEntriesAreBadInput) {
  for (const char* bad : {"", "@3", ".hidden", "na ca@1", "naca@0", "naca@01", "naca@", "naca@beta",
                          "naca@1@2", "a/b@1"})
    EXPECT_NE(bad_input_of([&] { reg::parse_reference(bad); }), "") << bad;
  const reg::Reference r = reg::parse_reference("naca-0012.v2@prod");
  EXPECT_EQ(r.name, "naca-0012.v2");
  EXPECT_TRUE(r.has_stage);
  EXPECT_EQ(r.stage, reg::Stage::prod);

  reg::Registry store((scratch() / "missing").string());
  store.register_model(model_file("m.h5", 3, 1e-3), "naca");
  EXPECT_NE(bad_input_of([&] { store.resolve(reg::parse_reference("naca@prod")); })
                .find("has no naca@prod; it has naca@1 (dev)"),
            std::string::npos);
  EXPECT_NE(bad_input_of([&] { store.resolve(reg::parse_reference("wing")); })
                .find("it has no model of that name"),
            std::string::npos);
  EXPECT_NE(bad_input_of([&] { store.register_model((scratch() / "none.h5").string(), "naca"); })
                .find("none.h5"),
            std::string::npos);
  const std::string file = (scratch() / "plain").string();
  std::ofstream(file) << "x";
  EXPECT_NE(bad_input_of([&] { reg::Registry bad(file); }).find("is a file"), std::string::npos);
  EXPECT_NE(bad_input_of([&] { reg::resolve_model_path("nothing.h5", store.root()); })
                .find("no such file"),
            std::string::npos);
}

// A .sig naming a trusted key's id over garbage signature bytes: without
// trusted keys it is neither stored nor recorded (the version is unsigned,
// and says its .sig went unverified); with the key trusted it is refused,
// naming the file, and the genuine signature then registers the same
// content as signed, the stored .sig verifying. A forged .sig already in
// the store (as one written before this rule) gives way to the genuine one.
TEST(Registry, OnlyVerifiedSignaturesAreStoredOrReported) {
  const std::string dir = (scratch() / "signing").string();
  fs::create_directories(dir);
  const std::string id = camber::trust::generate_keypair(dir + "/release");
  const camber::trust::TrustedKeys keys = camber::trust::TrustedKeys::from_paths({dir + "/release.pub"});
  const camber::trust::TrustedKeys none;
  const std::string model = model_file("signed.h5", 21, 1e-3);
  camber::trust::sign_file(model, dir + "/release.key");
  const std::string genuine = bytes_of(model + ".sig");
  const std::size_t at = genuine.find("\nsignature ");
  ASSERT_NE(at, std::string::npos);
  const std::string forged = genuine.substr(0, at) + "\nsignature " + std::string(128, '7') + "\n";
  write(model + ".sig", forged);

  reg::Registry r((scratch() / "signatures").string());
  const reg::Entry unverified = r.register_model(model, "naca", reg::Stage::dev, none);
  EXPECT_EQ(unverified.signed_by, "");
  EXPECT_EQ(unverified.unverified_signature, model + ".sig");
  EXPECT_FALSE(fs::exists(unverified.blob + ".sig")) << "an unverified signature is not stored";
  EXPECT_EQ(r.resolve(reg::parse_reference("naca@1")).signed_by, "");

  const std::string refused =
      bad_input_of([&] { r.register_model(model, "naca", reg::Stage::dev, keys); });
  EXPECT_NE(refused.find(model), std::string::npos) << refused;
  EXPECT_NE(refused.find("does not verify"), std::string::npos) << refused;
  EXPECT_FALSE(fs::exists(unverified.blob + ".sig"));

  write(model + ".sig", genuine);
  const reg::Entry verified = r.register_model(model, "naca", reg::Stage::dev, keys);
  EXPECT_EQ(verified.version, 1) << "the same content is the same version";
  EXPECT_EQ(verified.signed_by, id);
  EXPECT_EQ(verified.unverified_signature, "");
  EXPECT_EQ(r.resolve(reg::parse_reference("naca@1")).signed_by, id);
  EXPECT_NO_THROW(camber::trust::require_signed(verified.blob, "stored model", keys));

  // A store poisoned before: its .sig forged, its entry naming the key.
  fs::remove(verified.blob + ".sig");
  write(verified.blob + ".sig", forged);
  EXPECT_NE(bad_input_of([&] { camber::trust::require_signed(verified.blob, "stored model", keys); }), "");
  const reg::Entry other = r.register_model(model, "other", reg::Stage::dev, keys);
  EXPECT_EQ(other.signed_by, id);
  EXPECT_EQ(bytes_of(other.blob + ".sig"), genuine);
  EXPECT_NO_THROW(camber::trust::require_signed(other.blob, "stored model", keys));
}

// A card whose data path names a file that is no data set (with that
// file's SHA-256, so that the registry opens it for its deck): refused,
// and the store holds no blob for it.
TEST(Registry, ARefusedRegistrationLeavesNoBlob) {
  const std::string text = (scratch() / "passwd").string();
  write(text, "root:x:0:0:root:/root:/bin/bash\n");
  const std::string model = model_file("bad_card.h5", 31, 1e-3, text, camber::trust::sha256_hex(bytes_of(text)));
  reg::Registry r((scratch() / "refused").string());
  EXPECT_THROW(r.register_model(model, "naca"), camber::Error);
  EXPECT_EQ(blob_count(r), 0);
  EXPECT_TRUE(r.list().empty());
  // A good file registers afterwards, as its only blob.
  r.register_model(model_file("good.h5", 32, 1e-3), "naca");
  EXPECT_EQ(blob_count(r), 1);
}

}  // namespace
