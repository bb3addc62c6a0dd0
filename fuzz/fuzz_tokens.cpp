// Any bytes as a tokens file (nn/serve/auth.cpp) and an Authorization
// header: TokenStore::load must load the file or throw camber::Error of
// kind bad_input naming it, never crash, hang or leak. The first line of
// the input is the header's value (and a token name), the rest the file.
//
// When the file loads: check() of the header says ok or revoked only for
// a well-formed "Bearer <token>" whose SHA-256 (computed here with
// OpenSSL, not by the code under test) the file holds with that state; a
// token add()ed under the first line's name (when it is a free name) is
// then accepted with that name, and after revoke() refused as revoked,
// while every other entry is kept as it was.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <camber/core/error.hpp>
#include <camber/nn/serve/auth.hpp>

#include "sha256_hex.hpp"

namespace {

using camber_fuzz::sha256_hex;
namespace fs = std::filesystem;
using camber::nn::serve::TokenStore;
using Verdict = TokenStore::Verdict;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_tokens: %s\n", what.c_str());
  std::abort();
}

// Loads `path`: the store, or nothing after a bad_input naming the file.
bool load(const std::string& path, TokenStore& store) {
  try {
    store = TokenStore::load(path);
    return true;
  } catch (const camber::Error& e) {
    if (e.kind() != camber::ErrorKind::bad_input) fail(std::string("not bad_input: ") + e.what());
    if (std::string(e.what()).find(path) == std::string::npos)
      fail(std::string("the message does not name the file: ") + e.what());
    return false;
  }
}

// The verdict on "Bearer <token>" for a token `name` holds.
void require_verdict(const TokenStore& store, const std::string& token, const std::string& name,
                     Verdict expected) {
  std::string got;
  if (store.check("Bearer " + token, &got) != expected || got != name)
    fail("token '" + name + "' has the wrong verdict");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path dir = [] {
    std::error_code ec;
    const fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    const fs::path d = base / ("camber_fuzz_tokens_" + std::to_string(::getpid()));
    fs::create_directories(d, ec);
    return d;
  }();
  const std::string path = (dir / "tokens").string();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = bytes.find('\n');
  const std::string header = bytes.substr(0, nl == std::string::npos ? bytes.size() : nl);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (nl != std::string::npos) out << bytes.substr(nl + 1);
  }
  TokenStore store;
  if (!load(path, store)) return 0;
  const std::map<std::string, TokenStore::Token> before = store.tokens();

  // The header's verdict, against the hashes the file holds.
  std::string name;
  const Verdict v = store.check(header, &name);
  if (v == Verdict::ok || v == Verdict::revoked) {
    if (header.compare(0, 7, "Bearer ") != 0) fail("a header without 'Bearer ' was accepted");
    const auto it = before.find(sha256_hex(header.substr(7)));
    if (it == before.end() || it->second.name != name || it->second.revoked != (v == Verdict::revoked))
      fail("a token the file does not hold was given a name");
  }

  // A new token under the first line's name, then revoked.
  std::string token;
  try {
    token = TokenStore::add(path, header);
  } catch (const camber::Error& e) {
    if (e.kind() != camber::ErrorKind::bad_input) fail(std::string("add: not bad_input: ") + e.what());
    return 0;
  }
  if (!load(path, store)) fail("the file add() wrote does not load");
  require_verdict(store, token, header, Verdict::ok);
  TokenStore::revoke(path, header);
  if (!load(path, store)) fail("the file revoke() wrote does not load");
  require_verdict(store, token, header, Verdict::revoked);
  auto after = store.tokens();
  after.erase(sha256_hex(token));
  if (after.size() != before.size()) fail("add or revoke changed the other entries");
  for (const auto& entry : before) {
    const auto it = after.find(entry.first);
    if (it == after.end() || it->second.name != entry.second.name ||
        it->second.revoked != entry.second.revoked)
      fail("add or revoke changed the other entries");
  }
  return 0;
}
