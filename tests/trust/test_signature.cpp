// camber::trust: ed25519 signatures of files and the gate that loads only
// files signed by a trusted key.
//
// References, none from this code: SHA-256("abc") from FIPS 180-2 (appendix
// B.1); RFC 8032's test 1 key pair (section 7.1); the ed25519 signature of
// the message "camber-signature 1\nbytes 3\nsha256 <SHA-256(abc)>\n" under
// that key, computed by OpenSSL 3.0 (through Python's cryptography
// package); the key id, SHA-256 of the public key cut to 8 bytes, by
// Python's hashlib.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

#include <camber/core/error.hpp>
#include <camber/trust/signature.hpp>

namespace camber {
namespace {

namespace fs = std::filesystem;

const std::string abc_sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const std::string rfc_seed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const std::string rfc_public = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const std::string rfc_id = "21fe31dfa154a261";
const std::string rfc_signature_of_abc =
    "e622d90c995adffbd1815b670b81d918c405b75b9dc23ee4c7ab098c1e5d582b"
    "a8fa01172e457405b843741393c1f2ec801c0fcf9dc3dd78dd9fef779d163f08";

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(CAMBER_TEST_SCRATCH) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The bad_input message of `f`, or "" when it does not throw one.
template <class F>
std::string bad_input_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::bad_input) return e.message();
    return "not bad_input: " + e.message();
  }
  return "";
}

::testing::AssertionResult says(const std::string& message,
                                std::initializer_list<std::string> parts) {
  if (message.empty()) return ::testing::AssertionFailure() << "no bad_input error";
  for (const std::string& p : parts)
    if (message.find(p) == std::string::npos)
      return ::testing::AssertionFailure() << "'" << message << "' lacks '" << p << "'";
  return ::testing::AssertionSuccess();
}

TEST(Signature, RfcKeyAndOpenSslSignatureOfTheSignedMessage) {
  const fs::path dir = scratch("rfc");
  write(dir / "rfc.key", "camber-secret-key 1\nid " + rfc_id + "\nkey " + rfc_seed + rfc_public + "\n");
  write(dir / "rfc.pub", "camber-public-key 1\nid " + rfc_id + "\nkey " + rfc_public + "\n");
  write(dir / "abc.txt", "abc");
  EXPECT_EQ(trust::sign_file((dir / "abc.txt").string(), (dir / "rfc.key").string()), rfc_id);
  EXPECT_EQ(read(dir / "abc.txt.sig"), "camber-signature 1\nbytes 3\nsha256 " + abc_sha256 +
                                           "\nkey " + rfc_id + "\nsignature " + rfc_signature_of_abc +
                                           "\n");
  const trust::TrustedKeys keys = trust::TrustedKeys::from_paths({(dir / "rfc.pub").string()});
  ASSERT_EQ(keys.keys().size(), 1u);
  EXPECT_EQ(keys.keys()[0].id, rfc_id);
  trust::Verdict v;
  EXPECT_EQ(trust::read_verified((dir / "abc.txt").string(), "file", keys, &v), "abc");
  EXPECT_TRUE(v.signed_by_trusted);
  EXPECT_EQ(v.key_id, rfc_id);
  EXPECT_NO_THROW(trust::require_signed((dir / "abc.txt").string(), "file", keys));
}

TEST(Signature, DamagedKeyFilesAreRejected) {
  const fs::path dir = scratch("damaged");
  // The public half does not belong to the seed.
  std::string other = rfc_public;
  other[0] = other[0] == '0' ? '1' : '0';
  write(dir / "bad.key", "camber-secret-key 1\nid " + rfc_id + "\nkey " + rfc_seed + other + "\n");
  write(dir / "abc.txt", "abc");
  EXPECT_TRUE(says(bad_input_of([&] { trust::sign_file((dir / "abc.txt").string(), (dir / "bad.key").string()); }),
                   {"bad.key", "does not match its id"}));
  write(dir / "bad.pub", "camber-public-key 1\nid 0000000000000000\nkey " + rfc_public + "\n");
  EXPECT_TRUE(says(bad_input_of([&] { trust::TrustedKeys::from_paths({(dir / "bad.pub").string()}); }),
                   {"bad.pub:2:", "is not the key's id " + rfc_id}));
  write(dir / "short.pub", "camber-public-key 1\nid " + rfc_id + "\nkey abcd\n");
  EXPECT_TRUE(says(bad_input_of([&] { trust::TrustedKeys::from_paths({(dir / "short.pub").string()}); }),
                   {"short.pub:3:", "64 lower-case hex digits"}));
  EXPECT_TRUE(says(bad_input_of([&] { trust::TrustedKeys::from_paths({dir.string()}); }),
                   {"bad.pub:2:"}));  // a folder's keys are all read
  fs::create_directories(dir / "empty");
  EXPECT_TRUE(says(bad_input_of([&] { trust::TrustedKeys::from_paths({(dir / "empty").string()}); }),
                   {"holds no .pub key"}));
}

TEST(Signature, EveryWayAFileFailsTheGate) {
  const fs::path dir = scratch("gate");
  const std::string alice = trust::generate_keypair((dir / "alice").string());
  const std::string bob = trust::generate_keypair((dir / "bob").string());
  EXPECT_NE(alice, bob);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "alice.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "the secret key is its owner's only";
  EXPECT_TRUE(says(bad_input_of([&] { trust::generate_keypair((dir / "alice").string()); }),
                   {"never overwritten"}));
  const trust::TrustedKeys trust_alice = trust::TrustedKeys::from_paths({(dir / "alice.pub").string()});
  const trust::TrustedKeys trust_bob = trust::TrustedKeys::from_paths({(dir / "bob.pub").string()});
  const std::string file = (dir / "model.bin").string();
  write(file, std::string("\x89HDF\r\n\x1a\n", 8) + std::string(1000, 'm'));

  // Nothing trusted: nothing required, no signature needed.
  EXPECT_EQ(trust::read_verified(file, "model file", trust::TrustedKeys()).size(), 1008u);
  EXPECT_NO_THROW(trust::require_signed(file, "model file", trust::TrustedKeys()));
  // Trusted keys, no signature.
  EXPECT_TRUE(says(bad_input_of([&] { trust::require_signed(file, "model file", trust_alice); }),
                   {"model file '", "' is not signed (no ", ".sig)", "alice.pub (" + alice + ")"}));
  trust::sign_file(file, (dir / "alice.key").string());
  EXPECT_NO_THROW(trust::require_signed(file, "model file", trust_alice));
  // Signed, by a key not trusted.
  EXPECT_TRUE(says(bad_input_of([&] { trust::require_signed(file, "model file", trust_bob); }),
                   {"is signed by key " + alice + ", which is not trusted", "bob.pub (" + bob + ")"}));
  // One byte changed after signing.
  const std::string signature = read(file + ".sig");
  std::string bytes = read(file);
  bytes[500] = 'x';
  write(file, bytes);
  EXPECT_TRUE(says(bad_input_of([&] { trust::read_verified(file, "model file", trust_alice); }),
                   {"changed after it was signed", "1008 bytes with SHA-256"}));
  // The digest recomputed by a forger, without the key: the signature
  // does not verify.
  write(file + ".sig", "x");  // (sign_file's digest, then the old signature over it)
  trust::sign_file(file, (dir / "bob.key").string());
  const std::string new_digest = read(file + ".sig").substr(0, read(file + ".sig").find("\nkey "));
  write(file + ".sig", new_digest + signature.substr(signature.find("\nkey ")));
  EXPECT_TRUE(says(bad_input_of([&] { trust::require_signed(file, "model file", trust_alice); }),
                   {"the signature by key " + alice + " does not verify"}));
  // Malformed signature files name the line.
  const std::pair<std::string, std::string> malformed[] = {
      {"camber-signature 2\n", ".sig:1: expected 'camber-signature 1'"},
      {"camber-signature 1\nbytes x\nsha256 " + abc_sha256 + "\nkey " + alice + "\nsignature " +
           rfc_signature_of_abc + "\n",
       ".sig:2: bytes must be a count"},
      {"camber-signature 1\nbytes 3\nsha256 abc\nkey " + alice + "\nsignature " +
           rfc_signature_of_abc + "\n",
       ".sig:3: sha256 must be 64"},
      {"camber-signature 1\nbytes 3\nsha256 " + abc_sha256 + "\nkey " + alice +
           "\nsignature " + rfc_signature_of_abc.substr(2) + "\n",
       ".sig:5: signature must be 128"},
      {"camber-signature 1\nbytes 3\nsha256 " + abc_sha256 + "\nkey " + alice + "\n",
       ".sig:5: ends before 'signature'"},
      {signature + "extra 1\n", ".sig:6: unexpected text after 'signature'"},
      {"camber-signature 1\nbytes 3\nkey 1\n", ".sig:3: expected 'sha256 <value>'"}};
  for (const auto& [text, want] : malformed) {
    write(file + ".sig", text);
    EXPECT_TRUE(says(bad_input_of([&] { trust::require_signed(file, "model file", trust_alice); }),
                     {"has a malformed signature", want}))
        << text;
  }
}

}  // namespace
}  // namespace camber
