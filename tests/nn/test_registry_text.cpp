// nn/registry/entry_text.hpp: what `camber models show`, `diff` and
// `list` print, from entries built by hand: the card's fields, the
// validation error's change in per cent (closed form), the decks' changed
// lines only (a longest common subsequence leaves common lines out), and
// one table row per entry, its columns where the header's are for names
// up to the longest a registry takes.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <camber/nn/registry/entry_text.hpp>

namespace {

namespace reg = camber::nn::registry;

reg::Entry entry(std::int64_t version, double cd_rmse, const std::string& deck) {
  reg::Entry e;
  e.name = "naca";
  e.version = version;
  e.stage = version == 1 ? reg::Stage::prod : reg::Stage::dev;
  e.sha256 = std::string(64, version == 1 ? 'a' : 'b');
  e.outputs = {"CL", "CD"};
  e.validation_rmse = {1e-3, cd_rmse};
  e.training_deck = deck;
  e.data_rows = 100;
  return e;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RegistryText, DescribeShowsTheCard) {
  reg::Entry e = entry(1, 2e-4, "case: a\nepochs: 10\n");
  e.signed_by = "0123abcd";
  const std::string t = reg::describe(e);
  EXPECT_TRUE(has(t, "naca@1  (prod)")) << t;
  EXPECT_TRUE(has(t, e.sha256)) << t;
  EXPECT_TRUE(has(t, "key 0123abcd")) << t;
  EXPECT_TRUE(has(t, "RMSE CL 0.001, CD 0.0002")) << t;
  EXPECT_TRUE(has(t, "    epochs: 10")) << t;
  EXPECT_TRUE(has(t, "sample deck (lineage of the data) (not recorded)")) << t;
  EXPECT_EQ(reg::rmse_text(reg::Entry{}), "-");
}

// A card's text comes from a file anyone may have written: an escape
// sequence in it must reach the terminal as \x1b, never as the byte, in
// every view (show, diff, list), while the line breaks stay.
TEST(RegistryText, TerminalEscapesInACardAreShownNotSent) {
  reg::Entry e = entry(1, 2e-4, "case: a\x1b]0;owned\x07\nepochs: 10\n");
  e.data_path = "data\x1b[2J.csv";
  e.source = "model\x9b" "1m.h5";  // a lone C1 byte: not UTF-8
  reg::Entry f = entry(2, 3e-4, "case: b\x1b[31m\nepochs: 10\n");
  const std::vector<std::string> views = {reg::describe(e), reg::diff(e, f),
                                          reg::list_table({e, f})};
  for (const std::string& t : views) {
    EXPECT_EQ(t.find('\x1b'), std::string::npos) << t;
    EXPECT_EQ(t.find('\x07'), std::string::npos) << t;
    EXPECT_EQ(t.find('\x9b'), std::string::npos) << t;
  }
  EXPECT_TRUE(has(views[0], "data\\x1b[2J.csv")) << views[0];
  EXPECT_TRUE(has(views[0], "model\\x9b1m.h5")) << views[0];
  EXPECT_TRUE(has(views[0], "    epochs: 10\n")) << views[0];
  EXPECT_TRUE(has(views[1], "case: b\\x1b[31m")) << views[1];
}

TEST(RegistryText, DiffListsChangesOnly) {
  const reg::Entry a = entry(1, 2e-4, "case: a\nlr: 0.01\nepochs: 10\n");
  const reg::Entry b = entry(2, 3e-4, "case: a\nlr: 0.001\nepochs: 10\nseed: 3\n");
  const std::string t = reg::diff(a, b);
  EXPECT_TRUE(has(t, "naca@1 -> naca@2")) << t;
  EXPECT_TRUE(has(t, "stage         prod -> dev")) << t;
  EXPECT_TRUE(has(t, "data rows     100 (same)")) << t;
  // (3e-4 - 2e-4) / 2e-4 = +50%; CL unchanged, +0%.
  EXPECT_TRUE(has(t, "CD: 0.0002 -> 0.0003 (+50%)")) << t;
  EXPECT_TRUE(has(t, "CL: 0.001 -> 0.001 (+0%)")) << t;
  EXPECT_TRUE(has(t, "    - lr: 0.01\n")) << t;
  EXPECT_TRUE(has(t, "    + lr: 0.001\n")) << t;
  EXPECT_TRUE(has(t, "    + seed: 3\n")) << t;
  EXPECT_FALSE(has(t, "case: a")) << t;   // common lines are left out
  EXPECT_FALSE(has(t, "epochs: 10")) << t;
  EXPECT_TRUE(has(t, "sample deck (same)")) << t;
  EXPECT_TRUE(has(reg::diff(a, a), "training deck (same)"));
}

TEST(RegistryText, LargeDecksAreListedWholeNotMatched) {
  std::string big_a, big_b;
  for (int i = 0; i < 2500; ++i) {
    big_a += "line " + std::to_string(i) + "\n";
    big_b += "line " + std::to_string(i + 1) + "\n";
  }
  const std::string t = reg::diff(entry(1, 2e-4, big_a), entry(2, 2e-4, big_b));
  EXPECT_TRUE(has(t, "    - line 0\n"));
  EXPECT_TRUE(has(t, "    + line 2500\n"));
  EXPECT_TRUE(has(t, "    - line 7\n"));  // listed although common
}

TEST(RegistryText, ListHasOneRowPerEntry) {
  const std::string t = reg::list_table({entry(1, 2e-4, ""), entry(2, 3e-4, "")});
  EXPECT_TRUE(has(t, "model")) << t;
  EXPECT_TRUE(has(t, "naca@1")) << t;
  EXPECT_TRUE(has(t, "naca@2")) << t;
  EXPECT_TRUE(has(t, std::string(12, 'a') + "  ")) << t;
  EXPECT_FALSE(has(t, std::string(13, 'a'))) << t;  // the hash's first 12 digits
}

// References of 24 characters (the old column's width) and of the longest
// name (64 characters): every row's stage starts where the header's does,
// after a space, and the reference is whole before it.
TEST(RegistryText, ListColumnsHoldTheLongestNames) {
  reg::Entry exact = entry(1, 2e-4, ""), longest = entry(2, 3e-4, "");
  exact.name = std::string(22, 'x');      // "xx...x@1": 24 characters
  longest.name = std::string(64, 'n');
  const std::string t = reg::list_table({entry(1, 2e-4, ""), exact, longest});
  std::istringstream lines(t);
  std::string header;
  ASSERT_TRUE(std::getline(lines, header));
  const std::size_t stage = header.find("stage");
  ASSERT_NE(stage, std::string::npos) << t;
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"naca@1", "prod"}, {exact.reference(), "prod"}, {longest.reference(), "dev"}};
  for (const auto& [reference, stage_name] : rows) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << t;
    EXPECT_EQ(line.compare(0, reference.size() + 1, reference + " "), 0) << line;
    EXPECT_EQ(line.compare(stage - 1, stage_name.size() + 1, " " + stage_name), 0) << t;
  }
}

}  // namespace
