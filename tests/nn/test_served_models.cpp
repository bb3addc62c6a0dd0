// nn/serve/served_models.hpp: what `camber serve` is given, loaded. A plain
// file is served under its stem at version 1 and not followed; NAME=FILE
// under NAME; a file whose own name holds '=' is a file; a registry
// reference (a registry in a scratch folder) under its registry name and
// version, followed: after another version is promoted, its resolver
// names that version's file. The description lists each model as
// "NAME version V (SPEC, network)". A missing file and a reference the
// registry lacks are bad_input naming them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/registry/registry.hpp>
#include <camber/nn/serve/served_models.hpp>

#include "scratch.hpp"
#include "small_model.hpp"

namespace {

namespace nn = camber::nn;
namespace reg = camber::nn::registry;
namespace serve = camber::nn::serve;
namespace fs = std::filesystem;

fs::path scratch() { return camber::test::scratch("camber_served_models_"); }

// A small network saved as `file` in the scratch folder; `seed` changes its
// weights (and so its SHA-256).
std::string model_file(const std::string& file, std::uint64_t seed) {
  const std::string path = (scratch() / file).string();
  nn::io::save_model(path, camber::test::small_surrogate(seed), {});
  return path;
}

std::string described(const std::string& name, const std::string& version, const std::string& spec,
                      const std::string& path) {
  return name + " version " + version + " (" + spec + ", " +
         nn::io::load_model(path).surrogate.network().describe() + ")";
}

TEST(ServedModels, FilesAreServedUnderTheirStemOrTheirName) {
  const std::string a = model_file("naca.h5", 1), b = model_file("wing.h5", 2);
  const std::string odd = model_file("a=b.h5", 3);
  const serve::ServedModels m = serve::load_served_models({a, "w2=" + b, odd});
  ASSERT_EQ(m.models.size(), 3u);
  EXPECT_EQ(m.models[0].name, "naca");
  EXPECT_EQ(m.models[0].version, "1");
  EXPECT_EQ(m.models[0].model.sha256, nn::io::load_model(a).sha256);
  EXPECT_EQ(m.models[1].name, "w2");
  EXPECT_EQ(m.models[1].version, "1");
  EXPECT_EQ(m.models[1].model.sha256, nn::io::load_model(b).sha256);
  EXPECT_EQ(m.models[2].name, "a=b");  // an existing file, '=' and all
  EXPECT_EQ(m.models[2].model.sha256, nn::io::load_model(odd).sha256);
  EXPECT_TRUE(m.followed.empty());
  EXPECT_EQ(m.description, described("naca", "1", a, a) + "; " + described("w2", "1", "w2=" + b, b) + "; " +
                               described("a=b", "1", odd, odd));
}

TEST(ServedModels, ARegistryReferenceIsFollowed) {
  const std::string root = (scratch() / "registry").string();
  reg::Registry r(root);
  const reg::Entry v1 = r.register_model(model_file("m1.h5", 11), "naca");
  r.promote("naca", v1.version, reg::Stage::prod);
  const std::string file = model_file("plain.h5", 12);
  const serve::ServedModels m = serve::load_served_models({file, "naca@prod", "alias=naca@prod"}, root);
  ASSERT_EQ(m.models.size(), 3u);
  EXPECT_EQ(m.models[1].name, "naca");
  EXPECT_EQ(m.models[1].version, std::to_string(v1.version));
  const std::string sha_v1 = nn::io::load_model(v1.blob).sha256;
  EXPECT_EQ(m.models[1].model.sha256, sha_v1);
  EXPECT_EQ(m.models[2].name, "alias");
  EXPECT_EQ(m.models[2].model.sha256, sha_v1);
  ASSERT_EQ(m.followed.size(), 2u);  // the references, not the file
  EXPECT_EQ(m.followed[0].index, 1u);
  EXPECT_EQ(m.followed[0].label, "naca@prod");
  EXPECT_EQ(m.followed[1].index, 2u);
  EXPECT_EQ(m.followed[1].label, "alias=naca@prod");
  const serve::Resolved now = m.followed[0].resolve();
  EXPECT_EQ(now.path, v1.blob);
  EXPECT_EQ(now.version, std::to_string(v1.version));
  EXPECT_NE(m.description.find(described("naca", std::to_string(v1.version), "naca@prod", v1.blob)),
            std::string::npos)
      << m.description;

  // Another version promoted: both followers name it.
  const reg::Entry v2 = r.register_model(model_file("m2.h5", 12345), "naca");
  ASSERT_NE(v2.version, v1.version);
  r.promote("naca", v2.version, reg::Stage::prod);
  for (const serve::FollowedModel& f : m.followed) {
    const serve::Resolved next = f.resolve();
    EXPECT_EQ(next.path, v2.blob);
    EXPECT_EQ(next.version, std::to_string(v2.version));
  }
}

std::string bad_input_of(const std::vector<std::string>& specs, const std::string& root = "") {
  try {
    serve::load_served_models(specs, root);
  } catch (const camber::Error& e) {
    return e.kind() == camber::ErrorKind::bad_input ? e.message() : "not bad_input: " + e.message();
  }
  return "accepted";
}

TEST(ServedModels, MissingFilesAndReferencesAreBadInput) {
  const std::string missing = (scratch() / "missing.h5").string();
  EXPECT_NE(bad_input_of({missing}).find("cannot open model file '" + missing + "': no such file"),
            std::string::npos);
  EXPECT_NE(bad_input_of({"n=" + missing}).find("'" + missing + "'"), std::string::npos);
  const std::string root = (scratch() / "empty_registry").string();
  reg::Registry r(root);
  const std::string message = bad_input_of({model_file("ok.h5", 5), "nothing@prod"}, root);
  EXPECT_NE(message.find("nothing"), std::string::npos) << message;
  EXPECT_EQ(message.find("accepted"), std::string::npos);
  EXPECT_EQ(message.find("not bad_input"), std::string::npos) << message;
}

}  // namespace
