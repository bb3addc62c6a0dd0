// The SHA-256 of bytes as lowercase hex, computed with OpenSSL: the fuzz
// targets' own digest, independent of the code under test.
#pragma once

#include <openssl/evp.h>

#include <cstdio>
#include <string>

namespace camber_fuzz {

inline std::string sha256_hex(const std::string& bytes) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), d, &n, EVP_sha256(), nullptr);
  char hex[2 * EVP_MAX_MD_SIZE + 1];
  for (unsigned int i = 0; i < n; ++i) std::snprintf(hex + 2 * i, 3, "%02x", d[i]);
  return std::string(hex, 2 * n);
}

}  // namespace camber_fuzz
