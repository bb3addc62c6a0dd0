#include <camber/trust/signature.hpp>

#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>

namespace camber::trust {

namespace fs = std::filesystem;

namespace {

constexpr const char* public_header = "camber-public-key 1";
constexpr const char* secret_header = "camber-secret-key 1";
constexpr const char* signature_header = "camber-signature 1";

void start_sodium() {
  static const int rc = sodium_init();  // 0 first time, 1 after: both fine
  CAMBER_REQUIRE(rc >= 0, "libsodium could not be initialized");
}

std::string hex(const unsigned char* data, std::size_t n) {
  std::string out(2 * n + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), data, n);
  out.resize(2 * n);
  return out;
}

// Lower-case hex of exactly 2 n digits into `out`; false otherwise.
bool unhex(const std::string& text, unsigned char* out, std::size_t n) {
  if (text.size() != 2 * n) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  std::size_t got = 0;
  return sodium_hex2bin(out, n, text.data(), text.size(), nullptr, &got, nullptr) == 0 && got == n;
}

std::string key_id(const unsigned char* public_key) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, public_key, crypto_sign_PUBLICKEYBYTES);
  return hex(digest, 8);
}

// The "word value" lines of a key or signature file, in the order given
// after its header line; bad_input at the first line that is not.
std::vector<std::string> fields(const std::string& text, const std::string& source,
                                const char* header, const std::vector<std::string>& words) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  const auto fail = [&](const std::string& what) {
    throw_bad_input(source + ":" + std::to_string(number) + ": " + what);
  };
  ++number;
  if (!std::getline(in, line) || line != header)
    fail(std::string("expected '") + header + "' (not a Camber " +
         (std::string(header).find("signature") != std::string::npos ? "signature" : "key") +
         " file)");
  std::vector<std::string> values;
  for (const std::string& word : words) {
    ++number;
    if (!std::getline(in, line)) fail("ends before '" + word + "'");
    const std::size_t space = line.find(' ');
    if (space == std::string::npos || line.compare(0, space, word) != 0 || space != word.size())
      fail("expected '" + word + " <value>'");
    const std::string value = line.substr(space + 1);
    if (value.empty() || value.find_first_of(" \t\r") != std::string::npos)
      fail("'" + word + "' needs one value without spaces");
    values.push_back(value);
  }
  ++number;
  if (std::getline(in, line) || !in.eof()) fail("unexpected text after '" + words.back() + "'");
  return values;
}

std::string read_text(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot read " << what << " '" << path << "'");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string signed_message(std::uint64_t bytes, const std::string& sha256) {
  return std::string(signature_header) + "\nbytes " + std::to_string(bytes) + "\nsha256 " +
         sha256 + "\n";
}

// A secret key file: the 64-byte libsodium key (seed, then public key),
// its public half checked against the id.
std::array<unsigned char, crypto_sign_SECRETKEYBYTES> parse_secret_key(const std::string& text,
                                                                      const std::string& source) {
  const std::vector<std::string> v = fields(text, source, secret_header, {"id", "key"});
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> sk{};
  CAMBER_INPUT_REQUIRE(unhex(v[1], sk.data(), sk.size()),
                       source << ":3: the key must be " << 2 * sk.size() << " lower-case hex digits");
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_ed25519_sk_to_pk(pk, sk.data());
  unsigned char seed[crypto_sign_SEEDBYTES], again_pk[crypto_sign_PUBLICKEYBYTES],
      again_sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_ed25519_sk_to_seed(seed, sk.data());
  crypto_sign_seed_keypair(again_pk, again_sk, seed);
  const bool consistent = sodium_memcmp(again_pk, pk, sizeof pk) == 0;
  sodium_memzero(seed, sizeof seed);
  sodium_memzero(again_sk, sizeof again_sk);
  CAMBER_INPUT_REQUIRE(consistent && key_id(pk) == v[0],
                       source << ": the secret key does not match its id " << v[0]
                              << " (a damaged key file)");
  return sk;
}

// SHA-256 and size of a file, streamed.
std::pair<std::uint64_t, std::string> digest_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot open " << what << " '" << path << "'");
  crypto_hash_sha256_state state;
  crypto_hash_sha256_init(&state);
  std::vector<char> buffer(1 << 20);
  std::uint64_t size = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n <= 0) break;
    crypto_hash_sha256_update(&state, reinterpret_cast<const unsigned char*>(buffer.data()),
                              static_cast<unsigned long long>(n));
    size += static_cast<std::uint64_t>(n);
  }
  CAMBER_INPUT_REQUIRE(in.eof(), "cannot read " << what << " '" << path << "'");
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&state, digest);
  return {size, hex(digest, sizeof digest)};
}

std::string digest_bytes(const std::string& bytes) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()),
                     static_cast<unsigned long long>(bytes.size()));
  return hex(digest, sizeof digest);
}

// The checks of the file comment, on the file's size and digest.
Verdict verify_digest(std::uint64_t size, const std::string& sha256,
                      const std::string& signature_text, const std::string& path,
                      const std::string& what, const TrustedKeys& trusted) {
  const std::string sig_path = path + ".sig";
  Signature sig;
  try {
    sig = parse_signature(signature_text, sig_path);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::bad_input) throw;
    throw_bad_input(what + " '" + path + "' has a malformed signature: " + e.message());
  }
  const PublicKey* key = trusted.find(sig.key_id);
  CAMBER_INPUT_REQUIRE(key != nullptr, what << " '" << path << "' is signed by key " << sig.key_id
                                            << ", which is not trusted (" << trusted.describe()
                                            << ")");
  CAMBER_INPUT_REQUIRE(size == sig.bytes && sha256 == sig.sha256,
                       what << " '" << path << "' changed after it was signed: " << size
                            << " bytes with SHA-256 " << sha256 << ", signed " << sig.bytes
                            << " bytes with SHA-256 " << sig.sha256);
  const std::string message = signed_message(sig.bytes, sig.sha256);
  CAMBER_INPUT_REQUIRE(
      crypto_sign_verify_detached(sig.signature.data(),
                                  reinterpret_cast<const unsigned char*>(message.data()),
                                  message.size(), key->key.data()) == 0,
      what << " '" << path << "': the signature by key " << sig.key_id
           << " does not verify (forged, or made with another key of that id)");
  return {true, sig.key_id, key->source};
}

std::string signature_text_of(const std::string& path, const std::string& what,
                              const TrustedKeys& trusted) {
  const std::string sig_path = path + ".sig";
  std::error_code ec;
  CAMBER_INPUT_REQUIRE(fs::is_regular_file(sig_path, ec),
                       what << " '" << path << "' is not signed (no " << sig_path
                            << "), and only signed files are loaded: " << trusted.describe());
  return read_text(sig_path, "signature");
}

}  // namespace

PublicKey parse_public_key(const std::string& text, const std::string& source) {
  start_sodium();
  const std::vector<std::string> v = fields(text, source, public_header, {"id", "key"});
  PublicKey k;
  k.source = source;
  CAMBER_INPUT_REQUIRE(unhex(v[1], k.key.data(), k.key.size()),
                       source << ":3: the key must be 64 lower-case hex digits");
  k.id = key_id(k.key.data());
  CAMBER_INPUT_REQUIRE(k.id == v[0], source << ":2: id " << v[0] << " is not the key's id "
                                            << k.id << " (a damaged key file)");
  return k;
}

Signature parse_signature(const std::string& text, const std::string& source) {
  start_sodium();
  const std::vector<std::string> v =
      fields(text, source, signature_header, {"bytes", "sha256", "key", "signature"});
  Signature s;
  CAMBER_INPUT_REQUIRE(!v[0].empty() && v[0].size() <= 19 &&
                           std::all_of(v[0].begin(), v[0].end(), [](char c) { return c >= '0' && c <= '9'; }),
                       source << ":2: bytes must be a count");
  s.bytes = std::stoull(v[0]);
  unsigned char digest[crypto_hash_sha256_BYTES];
  CAMBER_INPUT_REQUIRE(unhex(v[1], digest, sizeof digest),
                       source << ":3: sha256 must be 64 lower-case hex digits");
  s.sha256 = v[1];
  unsigned char id[8];
  CAMBER_INPUT_REQUIRE(unhex(v[2], id, sizeof id), source << ":4: key must be a 16-digit key id");
  s.key_id = v[2];
  CAMBER_INPUT_REQUIRE(unhex(v[3], s.signature.data(), s.signature.size()),
                       source << ":5: signature must be 128 lower-case hex digits");
  return s;
}

TrustedKeys TrustedKeys::from_paths(const std::vector<std::string>& paths) {
  TrustedKeys t;
  for (const std::string& p : paths) {
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::is_directory(p, ec)) {
      for (const auto& entry : fs::directory_iterator(p, ec))
        if (entry.path().extension() == ".pub") files.push_back(entry.path().string());
      std::sort(files.begin(), files.end());
      CAMBER_INPUT_REQUIRE(!files.empty(), "trusted keys: the folder '" << p << "' holds no .pub key");
    } else {
      CAMBER_INPUT_REQUIRE(fs::is_regular_file(p, ec),
                           "trusted keys: '" << p << "' is neither a .pub key file nor a folder");
      files.push_back(p);
    }
    for (const std::string& f : files) {
      PublicKey k = parse_public_key(read_text(f, "public key"), f);
      if (!t.find(k.id)) t.keys_.push_back(std::move(k));
    }
  }
  return t;
}

const TrustedKeys& TrustedKeys::environment() {
  static const TrustedKeys keys = [] {
    const char* value = std::getenv("CAMBER_TRUSTED_KEYS");
    std::vector<std::string> paths;
    std::string item;
    std::istringstream in(value ? value : "");
    while (std::getline(in, item, ':'))
      if (!item.empty()) paths.push_back(item);
    TrustedKeys t;
    try {
      t = from_paths(paths);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::bad_input) throw;
      throw_bad_input("CAMBER_TRUSTED_KEYS: " + e.message());
    }
    t.origin_ = "CAMBER_TRUSTED_KEYS";
    return t;
  }();
  return keys;
}

const PublicKey* TrustedKeys::find(const std::string& id) const {
  for (const PublicKey& k : keys_)
    if (k.id == id) return &k;
  return nullptr;
}

std::string TrustedKeys::describe() const {
  std::string list;
  for (const PublicKey& k : keys_) list += (list.empty() ? "" : ", ") + k.source + " (" + k.id + ")";
  return std::to_string(keys_.size()) + " trusted key" + (keys_.size() == 1 ? "" : "s") +
         (origin_.empty() ? "" : " of " + origin_) + ": " + list;
}

std::string generate_keypair(const std::string& stem) {
  start_sodium();
  const std::string secret_path = stem + ".key", public_path = stem + ".pub";
  std::error_code ec;
  CAMBER_INPUT_REQUIRE(!fs::exists(secret_path, ec) && !fs::exists(public_path, ec),
                       "keygen: '" << secret_path << "' or '" << public_path
                                   << "' exists; a key is never overwritten");
  unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  const std::string id = key_id(pk);
  const std::string secret =
      std::string(secret_header) + "\nid " + id + "\nkey " + hex(sk, sizeof sk) + "\n";
  sodium_memzero(sk, sizeof sk);
  if (fs::path(stem).has_parent_path()) fs::create_directories(fs::path(stem).parent_path(), ec);
  // The secret key is created readable by its owner only (O_EXCL: never
  // over another file).
  const int fd = ::open(secret_path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  CAMBER_INPUT_REQUIRE(fd >= 0, "keygen: cannot create '" << secret_path << "'");
  const bool written = ::write(fd, secret.data(), secret.size()) == static_cast<ssize_t>(secret.size());
  const bool closed = ::close(fd) == 0;
  CAMBER_REQUIRE(written && closed, "keygen: cannot write '" << secret_path << "'");
  write_file_atomically(public_path,
                        std::string(public_header) + "\nid " + id + "\nkey " + hex(pk, sizeof pk) + "\n");
  return id;
}

std::string sign_file(const std::string& path, const std::string& secret_key) {
  start_sodium();
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> sk =
      parse_secret_key(read_text(secret_key, "secret key"), secret_key);
  const auto [size, sha256] = digest_file(path, "file to sign");
  const std::string message = signed_message(size, sha256);
  unsigned char sig[crypto_sign_BYTES];
  crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(message.data()),
                       message.size(), sk.data());
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_ed25519_sk_to_pk(pk, sk.data());
  sodium_memzero(sk.data(), sk.size());
  const std::string id = key_id(pk);
  write_file_atomically(path + ".sig", message + "key " + id + "\nsignature " +
                                           hex(sig, sizeof sig) + "\n");
  return id;
}

std::string sha256_hex(const std::string& bytes) {
  start_sodium();
  return digest_bytes(bytes);
}

std::string random_hex(std::size_t n) {
  start_sodium();
  std::vector<unsigned char> b(n);
  randombytes_buf(b.data(), n);
  const std::string h = hex(b.data(), n);
  sodium_memzero(b.data(), n);
  return h;
}

Verdict verify_bytes(const std::string& bytes, const std::string& signature_text,
                     const std::string& path, const std::string& what, const TrustedKeys& trusted) {
  start_sodium();
  return verify_digest(bytes.size(), digest_bytes(bytes), signature_text, path, what, trusted);
}

std::string read_verified(const std::string& path, const std::string& what,
                          const TrustedKeys& trusted, Verdict* verdict) {
  std::error_code ec;
  CAMBER_INPUT_REQUIRE(fs::is_regular_file(path, ec), "cannot open " << what << " '" << path
                                                                     << "': no such file");
  std::string bytes = read_text(path, what);
  if (!trusted.empty()) {
    const Verdict v = verify_bytes(bytes, signature_text_of(path, what, trusted), path, what, trusted);
    if (verdict) *verdict = v;
  }
  return bytes;
}

void require_signed(const std::string& path, const std::string& what, const TrustedKeys& trusted) {
  if (trusted.empty()) return;
  start_sodium();
  const std::string text = signature_text_of(path, what, trusted);
  const auto [size, sha256] = digest_file(path, what);
  verify_digest(size, sha256, text, path, what, trusted);
}

}  // namespace camber::trust
