#include <camber/nn/serve/auth.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/trust/signature.hpp>

namespace camber::nn::serve {

namespace {

constexpr const char* header = "camber-tokens 1";
constexpr const char* prefix = "cbr_";

bool valid_name(const std::string& n) {
  return !n.empty() && n.size() <= 64 && std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

bool is_hex64(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// RFC 6750's b64token, at most 256 characters.
bool is_b64token(const std::string& t) {
  const std::size_t end = t.find_last_not_of('=') + 1;  // 0 when all '=' (or empty)
  return end > 0 && t.size() <= 256 && std::all_of(t.begin(), t.begin() + static_cast<long>(end), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
                  c == '~' || c == '+' || c == '/';
         });
}

// The file's entries in order (empty when the file does not exist).
std::vector<std::pair<std::string, TokenStore::Token>> read_entries(const std::string& path,
                                                                    bool must_exist) {
  std::vector<std::pair<std::string, TokenStore::Token>> out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    CAMBER_INPUT_REQUIRE(!must_exist, "tokens file '" << path << "' does not exist (make one with "
                                                         "camber token add NAME --tokens "
                                                      << path << ")");
    return out;
  }
  std::ifstream in(path);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot read tokens file '" << path << "'");
  std::string line;
  int number = 1;
  CAMBER_INPUT_REQUIRE(std::getline(in, line) && line == header,
                       path << ":1: expected '" << header << "' (not a tokens file)");
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::istringstream words(line);
    std::string sha, name, state, extra;
    words >> sha >> name >> state;
    CAMBER_INPUT_REQUIRE(is_hex64(sha) && valid_name(name) &&
                             (state == "active" || state == "revoked") && !(words >> extra),
                         path << ":" << number
                              << ": expected '<sha256> <name> active|revoked', got '" << line << "'");
    for (const auto& [h, t] : out)
      CAMBER_INPUT_REQUIRE(h != sha && t.name != name,
                           path << ":" << number << ": token '" << name << "' appears twice");
    out.push_back({sha, {name, state == "revoked"}});
  }
  return out;
}

void write_entries(const std::string& path,
                   const std::vector<std::pair<std::string, TokenStore::Token>>& entries) {
  std::ostringstream out;
  out << header << '\n';
  for (const auto& [sha, t] : entries) out << sha << ' ' << t.name << ' ' << (t.revoked ? "revoked" : "active") << '\n';
  write_file_atomically(path, out.str());
}

}  // namespace

TokenStore TokenStore::load(const std::string& path) {
  TokenStore s;
  for (auto& [sha, t] : read_entries(path, true)) s.by_hash_[sha] = t;
  return s;
}

std::string TokenStore::add(const std::string& path, const std::string& name) {
  CAMBER_INPUT_REQUIRE(valid_name(name), "token: '" << name
                                                    << "' is not a name (1 to 64 letters, digits, "
                                                       "'_', '-' or '.')");
  // Read, change, replace: under the lock, so that two commands adding
  // tokens at once both land.
  const FileLock lock(path);
  auto entries = read_entries(path, false);
  for (const auto& [sha, t] : entries)
    CAMBER_INPUT_REQUIRE(t.name != name, "token: '" << name << "' exists in " << path
                                                    << " (revoke it, or choose another name)");
  const std::string token = prefix + trust::random_hex(32);
  entries.push_back({trust::sha256_hex(token), {name, false}});
  write_entries(path, entries);
  return token;
}

void TokenStore::revoke(const std::string& path, const std::string& name) {
  const FileLock lock(path);
  auto entries = read_entries(path, true);
  bool found = false;
  for (auto& [sha, t] : entries)
    if (t.name == name) t.revoked = found = true;
  CAMBER_INPUT_REQUIRE(found, "token: no token named '" << name << "' in " << path);
  write_entries(path, entries);
}

TokenStore::Verdict TokenStore::check(const std::string& authorization, std::string* name) const {
  const std::string bearer = "Bearer ";
  if (authorization.compare(0, bearer.size(), bearer) != 0) return Verdict::missing;
  const std::string token = authorization.substr(bearer.size());
  if (!is_b64token(token)) return Verdict::malformed;
  const auto it = by_hash_.find(trust::sha256_hex(token));
  if (it == by_hash_.end()) return Verdict::unknown;
  if (name) *name = it->second.name;
  return it->second.revoked ? Verdict::revoked : Verdict::ok;
}

}  // namespace camber::nn::serve
