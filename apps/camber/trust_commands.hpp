// The signing subcommands of `camber` (src/trust): who may produce the
// model files, checkpoints and data sets a run loads.
//
//   camber keygen STEM                 STEM.key (secret, mode 0600), STEM.pub
//   camber sign FILE --key STEM.key    FILE.sig (ed25519 over its size and SHA-256)
//   camber verify FILE [--trusted PATH...]
//                                      checks FILE.sig against the keys given,
//                                      or those of CAMBER_TRUSTED_KEYS
//
// Loading refuses an unsigned or wrongly signed file whenever
// CAMBER_TRUSTED_KEYS names a key (exit code 2, saying which).
#pragma once

#include <string>
#include <vector>

#include <camber/core/runtime.hpp>

namespace camber::app {

int command_keygen(const std::string& stem, const Runtime& runtime);
int command_sign(const std::string& file, const std::string& key, const Runtime& runtime);
int command_verify(const std::string& file, const std::vector<std::string>& trusted,
                   const Runtime& runtime);

}  // namespace camber::app
