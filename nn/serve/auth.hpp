/// @file
/// camber::nn::serve::TokenStore: bearer tokens for `camber serve`, kept
/// as their SHA-256 only (a stolen tokens file grants nothing).
///
/// The file (written by `camber token add | revoke`):
/// @code
///   camber-tokens 1
///   <sha256 of the token> <name> active|revoked
/// @endcode
/// A token is "cbr_" and 64 hex digits (32 bytes from the system's
/// cryptographic random source), shown once when it is made. A request
/// carries it as `Authorization: Bearer <token>`; check() says whether it
/// is missing, malformed or unknown (401), revoked (403) or good. The
/// server takes exactly one Authorization header (two are 401, not the
/// first of them).
#pragma once

#include <map>
#include <string>

namespace camber::nn::serve {

class TokenStore {
 public:
  enum class Verdict { ok, missing, malformed, unknown, revoked };

  TokenStore() = default;
  /// bad_input naming the file and line for a malformed one.
  static TokenStore load(const std::string& path);
  /// Makes a token for `name` (bad_input when the name is taken or not
  /// 1-64 letters, digits, '_', '-', '.'), stores its hash in `path`
  /// (created if missing; rewritten atomically) and returns it.
  static std::string add(const std::string& path, const std::string& name);
  /// Marks `name`'s token revoked (bad_input when there is none). add and
  /// revoke read, change and replace the file under a lock on
  /// `<path>.lock`, each in a temporary file of its own, so concurrent
  /// ones (processes) are made one after another: none is lost, and a
  /// revoke that returns is in the file.
  static void revoke(const std::string& path, const std::string& name);

  bool empty() const noexcept { return by_hash_.empty(); }
  /// The verdict on an Authorization header's value; `name` gets the
  /// token's name when it is known. Malformed: "Bearer " followed by
  /// anything but 1 to 256 token characters (RFC 6750's b64token:
  /// letters, digits, '-', '.', '_', '~', '+', '/', then any '='), e.g.
  /// a token with a NUL byte and more after it.
  Verdict check(const std::string& authorization, std::string* name = nullptr) const;

  struct Token {
    std::string name;
    bool revoked = false;
  };
  const std::map<std::string, Token>& tokens() const noexcept { return by_hash_; }

 private:
  std::map<std::string, Token> by_hash_;  // sha256 -> token
};

}  // namespace camber::nn::serve
