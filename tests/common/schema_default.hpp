// A key's default in a schema as the deck reference states it, for tests
// that compare a key table's declared defaults with a library struct's.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include <camber/deck/schema.hpp>

namespace camber::test {

/// The default text of `section`.`key` in `s`; a failed expectation and ""
/// when the schema has no such section or key.
inline std::string default_of(const deck::Schema& s, const std::string& section,
                              const std::string& key) {
  const deck::Section* sec = s.find_section(section);
  const deck::KeySpec* k = sec ? sec->find_key(key) : nullptr;
  EXPECT_NE(k, nullptr) << section << "." << key;
  return k ? k->default_text() : "";
}

}  // namespace camber::test
