/// @file
/// camber::trust — ed25519 signatures of files, and the gate that loads
/// only files signed by a trusted key.
///
/// A file is signed by a detached signature beside it, `<file>.sig`, over
/// the file's size and SHA-256: renaming or copying the file keeps it
/// valid, changing a byte does not. Keys are text files:
/// @code
///   <name>.pub   camber-public-key 1 / id <16 hex> / key <64 hex>
///   <name>.key   camber-secret-key 1 / id <16 hex> / key <128 hex>   (mode 0600)
///   <file>.sig   camber-signature 1 / bytes <n> / sha256 <64 hex> / key <id> /
///                signature <128 hex>
/// @endcode
/// (one `word value` pair per line). The key id is the first 8 bytes of the
/// public key's SHA-256. The signed message is the text
/// "camber-signature 1\nbytes <n>\nsha256 <hex>\n".
///
/// Trust: the public keys listed in the environment variable
/// CAMBER_TRUSTED_KEYS (files or folders of `.pub` files, separated by
/// ':'), or given in code. With none configured nothing is required (a
/// signature present is then not checked). With one or more, every file
/// that passes the gate must carry a signature by one of them that
/// verifies over its bytes; otherwise bad input (exit code 2 in apps)
/// saying which: not signed, signed by an untrusted key (its id), changed
/// after signing, or a forged signature.
///
/// @code
///   trust::generate_keypair("keys/release");            // keys/release.{key,pub}
///   trust::sign_file("model.h5", "keys/release.key");    // model.h5.sig
///   trust::TrustedKeys keys = trust::TrustedKeys::from_paths({"keys/release.pub"});
///   std::string bytes = trust::read_verified("model.h5", "model file", keys);
///   // or, with CAMBER_TRUSTED_KEYS set: trust::require_signed(path, "data set");
/// @endcode
///
/// Gate, not sandbox: read_verified() returns the bytes it verified, so a
/// reader that parses those bytes (nn::io::load_model opens them as an
/// HDF5 file image) parses exactly what was signed. require_signed() checks
/// the file and the caller then opens it by name: a file swapped between
/// the two is not caught; keep such files where only their owner writes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace camber::trust {

struct PublicKey {
  std::string id;                    ///< 16 hex digits
  std::array<unsigned char, 32> key{};
  std::string source;                ///< the file it came from
};

/// A parsed `<file>.sig`.
struct Signature {
  std::uint64_t bytes = 0;
  std::string sha256;  ///< 64 lower-case hex digits
  std::string key_id;
  std::array<unsigned char, 64> signature{};
};

class TrustedKeys {
 public:
  TrustedKeys() = default;
  /// The keys of `paths`: `.pub` files, or folders whose `.pub` files are
  /// read. bad_input naming the file (and line) for a missing or malformed
  /// one, or a folder without keys.
  static TrustedKeys from_paths(const std::vector<std::string>& paths);
  /// CAMBER_TRUSTED_KEYS, read at the first call (empty when unset).
  static const TrustedKeys& environment();
  bool empty() const noexcept { return keys_.empty(); }
  const std::vector<PublicKey>& keys() const noexcept { return keys_; }
  /// The key of id `id`, or nullptr.
  const PublicKey* find(const std::string& id) const;
  /// "the N keys of CAMBER_TRUSTED_KEYS (a.pub, b.pub)": for messages.
  std::string describe() const;

 private:
  std::vector<PublicKey> keys_;
  std::string origin_;
};

/// Writes `<stem>.key` (mode 0600) and `<stem>.pub`; refuses (bad_input)
/// to overwrite either. Returns the key id.
std::string generate_keypair(const std::string& stem);
/// Signs `path` with the secret key file `secret_key`: writes
/// `<path>.sig` (atomically). Returns the key id.
std::string sign_file(const std::string& path, const std::string& secret_key);

/// Parses the text of a public key, secret key (its seed's public half is
/// checked against the id) or signature; `source` names it in errors
/// (bad_input with the line).
PublicKey parse_public_key(const std::string& text, const std::string& source);
Signature parse_signature(const std::string& text, const std::string& source);

/// The outcome of checking one file.
struct Verdict {
  bool signed_by_trusted = false;  ///< a trusted key's signature verified
  std::string key_id;              ///< of the signature, when there is one
  std::string key_source;          ///< the trusted key's file
};

/// Reads `path` whole and, when `trusted` is not empty, checks it against
/// `<path>.sig` (bad_input naming `what` and the path when it fails, see
/// the file comment). Returns the bytes checked.
std::string read_verified(const std::string& path, const std::string& what,
                          const TrustedKeys& trusted, Verdict* verdict = nullptr);
/// The same without keeping the bytes (streamed); does nothing when
/// `trusted` is empty.
void require_signed(const std::string& path, const std::string& what,
                    const TrustedKeys& trusted = TrustedKeys::environment());
/// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(const std::string& bytes);
/// `n` bytes from the system's cryptographic random source, as hex.
std::string random_hex(std::size_t n);

/// Checks `bytes` (the content of `path`) against its signature text.
Verdict verify_bytes(const std::string& bytes, const std::string& signature_text,
                     const std::string& path, const std::string& what, const TrustedKeys& trusted);

}  // namespace camber::trust
