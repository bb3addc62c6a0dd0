#include "trust_commands.hpp"

#include <iostream>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/trust/signature.hpp>

namespace camber::app {

// Files are written by rank 0; an error there is every rank's (exit 2).
int command_keygen(const std::string& stem, const Runtime& runtime) {
  std::string id;
  collective_guard(runtime.comm(), [&] {
    if (runtime.rank() == 0) id = trust::generate_keypair(stem);
  });
  logging::info("keygen: key " + id + ": " + stem + ".key (secret, keep it private), " + stem +
                ".pub (give it to whoever loads what you sign: CAMBER_TRUSTED_KEYS)");
  return 0;
}

int command_sign(const std::string& file, const std::string& key, const Runtime& runtime) {
  std::string id;
  collective_guard(runtime.comm(), [&] {
    if (runtime.rank() == 0) id = trust::sign_file(file, key);
  });
  logging::info("sign: " + file + ".sig (key " + id + ")");
  return 0;
}

int command_verify(const std::string& file, const std::vector<std::string>& trusted,
                   const Runtime& runtime) {
  trust::Verdict verdict;
  collective_guard(runtime.comm(), [&] {
    const trust::TrustedKeys keys =
        trusted.empty() ? trust::TrustedKeys::environment() : trust::TrustedKeys::from_paths(trusted);
    CAMBER_INPUT_REQUIRE(!keys.empty(), "verify: no trusted keys (give --trusted KEY.pub or "
                                        "set CAMBER_TRUSTED_KEYS)");
    trust::read_verified(file, "file", keys, &verdict);
  });
  logging::info("verify: " + file + " is signed by key " + verdict.key_id + " (" +
                verdict.key_source + ")");
  return 0;
}

}  // namespace camber::app
