// Hostile shapes (issue 14): nesting far deeper than any config, alias bombs, thousands of
// anchors. Each is read without recursion past kMaxNesting or work past the alias budget,
// reported once where the limit was crossed, and the rest of the document still works.
#include "opscope/coreai/config/context.h"
#include "opscope/coreai/config/document.h"

#include <gtest/gtest.h>

#include <string>

using namespace opscope::config;

namespace {

constexpr int kHostileDepth = 50'000;

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

std::vector<const SyntaxProblem*> with_code(const ConfigDocument& doc, const std::string& code) {
  std::vector<const SyntaxProblem*> out;
  for (const SyntaxProblem& p : doc.problems)
    if (p.code == code)
      out.push_back(&p);
  return out;
}

// A config whose line 2 holds `value`, with a pattern key before and after it.
std::string around(const std::string& value) {
  return "quantization_config:\n"
         "  module_name_configs:\n"
         "    x: " +
         value +
         "\n"
         "    layer1:\n"
         "      op_state_spec: {}\n";
}

bool has_key(const ConfigDocument& doc, const std::string& text) {
  for (const PatternKey& k : doc.keys)
    if (k.text == text)
      return true;
  return false;
}

void expect_one_too_deep_at(const ConfigDocument& doc, Position where) {
  auto deep = with_code(doc, "too-deep");
  ASSERT_EQ(deep.size(), 1u);
  EXPECT_EQ(deep[0]->range.start, where);
  EXPECT_NE(deep[0]->message.find("nesting deeper than " + std::to_string(kMaxNesting)),
            std::string::npos)
      << deep[0]->message;
  EXPECT_NE(deep[0]->message.find("~6"), std::string::npos);
}

// Column of the first bracket that opens past the limit on the `    x: ` line: the block
// maps around it (document, quantization_config, module_name_configs) are levels too.
constexpr int kBlockLevels = 3;
constexpr int kValueColumn = 7;
constexpr int kFirstTooDeep = kValueColumn + (kMaxNesting - kBlockLevels);

} // namespace

TEST(ConfigLimits, DeepFlowSequenceIsOneDiagnosticAndTheRestIsRead) {
  std::string value = repeat("[", kHostileDepth) + repeat("]", kHostileDepth);
  ConfigDocument doc = read_config(around(value), Format::Yaml);
  expect_one_too_deep_at(doc, {2, kFirstTooDeep});
  EXPECT_TRUE(has_key(doc, "x"));
  EXPECT_TRUE(has_key(doc, "layer1")) << "the key after the deep value is still read";
  EXPECT_EQ(doc.problems.size(), 1u) << "balanced brackets: nothing else is wrong";
}

TEST(ConfigLimits, DeepFlowMappingIsOneDiagnosticAndTheRestIsRead) {
  std::string value = repeat("{a: ", kHostileDepth) + "1" + repeat("}", kHostileDepth);
  ConfigDocument doc = read_config(around(value), Format::Yaml);
  expect_one_too_deep_at(doc, {2, kValueColumn + 4 * (kMaxNesting - kBlockLevels)});
  EXPECT_TRUE(has_key(doc, "layer1"));
  EXPECT_EQ(doc.problems.size(), 1u);
}

TEST(ConfigLimits, UnclosedDeepFlowStopsAtTheNextKey) {
  ConfigDocument doc = read_config(around(repeat("[", kHostileDepth)), Format::Yaml);
  expect_one_too_deep_at(doc, {2, kFirstTooDeep});
  EXPECT_TRUE(has_key(doc, "layer1")) << "a dedented line ends an unclosed collection";
}

TEST(ConfigLimits, NestingWithinTheLimitIsNotReported) {
  int depth = kMaxNesting - kBlockLevels; // exactly the limit
  ConfigDocument doc = read_config(around(repeat("[", depth) + repeat("]", depth)), Format::Yaml);
  EXPECT_TRUE(doc.problems.empty()) << doc.problems.front().message;
  doc = read_config(around(repeat("[", depth + 1) + repeat("]", depth + 1)), Format::Yaml);
  EXPECT_EQ(with_code(doc, "too-deep").size(), 1u) << "one level more is reported";
}

TEST(ConfigLimits, DeepJsonIsOneDiagnosticAndTheRestIsRead) {
  std::string text =
      "{\"quantization_config\": {\"module_name_configs\": {\"x\": " + repeat("[", kHostileDepth) +
      repeat("]", kHostileDepth) + ", \"layer1\": {}}}}\n";
  ConfigDocument doc = read_config(text, Format::Json);
  // JSON has no block levels: the document, quantization_config and module_name_configs
  // are flow mappings, so the limit is crossed at the same depth.
  auto deep = with_code(doc, "too-deep");
  ASSERT_EQ(deep.size(), 1u);
  EXPECT_EQ(deep[0]->range.start.byte_col,
            static_cast<int>(text.find('[')) + kMaxNesting - kBlockLevels);
  EXPECT_TRUE(has_key(doc, "layer1"));
  EXPECT_EQ(doc.problems.size(), 1u);
}

TEST(ConfigLimits, DeepBlockSequenceOnOneLine) {
  std::string text = "quantization_config:\n  module_name_configs:\n    x:\n      " +
                     repeat("- ", kHostileDepth) + "1\n    layer1: {}\n";
  ConfigDocument doc = read_config(text, Format::Yaml);
  auto deep = with_code(doc, "too-deep");
  ASSERT_EQ(deep.size(), 1u);
  EXPECT_EQ(deep[0]->range.start, (Position{3, 6 + 2 * (kMaxNesting - kBlockLevels)}));
  EXPECT_TRUE(has_key(doc, "layer1"));
  EXPECT_EQ(doc.problems.size(), 1u) << doc.problems.back().message;
}

TEST(ConfigLimits, DeepIndentationIsOneDiagnosticAndTheNextKeyIsRead) {
  std::string text = "quantization_config:\n  module_name_configs:\n    x:\n";
  const int levels = 2'000;
  for (int i = 0; i < levels; ++i)
    text += std::string(static_cast<std::size_t>(5 + i), ' ') + "k:\n";
  text += "    layer1:\n      op_state_spec: {}\n";
  ConfigDocument doc = read_config(text, Format::Yaml);
  auto deep = with_code(doc, "too-deep");
  ASSERT_EQ(deep.size(), 1u);
  // The map on line 3 + n opens inside 3 + n levels.
  int n = kMaxNesting - kBlockLevels;
  EXPECT_EQ(deep[0]->range.start, (Position{3 + n, 5 + n}));
  EXPECT_TRUE(has_key(doc, "layer1"));
  EXPECT_EQ(doc.problems.size(), 1u) << doc.problems.back().message;
}

TEST(ConfigLimits, ThousandsOfAnchorsOnOneValue) {
  ConfigDocument doc = read_config(
      around(repeat("&a ", kHostileDepth) + "1") + "    y:\n      <<: *a\n", Format::Yaml);
  EXPECT_TRUE(doc.problems.empty()) << doc.problems.front().message;
  EXPECT_TRUE(has_key(doc, "layer1"));
}

TEST(ConfigLimits, MergeBombStopsAtTheAliasBudgetWithOneDiagnostic) {
  // Each level merges the previous one ten times: 10^29 entries if expanded.
  std::string text = "a0: &a0 {module_name_configs: {x: {}}}\n";
  for (int i = 1; i < 30; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " {<<: [" +
            repeat(prev + ", ", 9) + prev + "]}\n";
  }
  text += "quantization_config:\n  <<: *a29\n  module_type_configs:\n    torch.nn.Linear: {}\n";
  ConfigDocument doc = read_config(text, Format::Yaml);
  auto bomb = with_code(doc, "alias-expansion");
  ASSERT_EQ(bomb.size(), 1u);
  EXPECT_NE(bomb[0]->message.find(std::to_string(kMaxAliasedEntries)), std::string::npos);
  EXPECT_LE(doc.keys.size(), kMaxAliasedEntries + 100);
  bool typed_key = false;
  for (const PatternKey& k : doc.keys)
    typed_key = typed_key || (k.text == "torch.nn.Linear" && !k.via_alias);
  EXPECT_TRUE(typed_key) << "the keys written after the merge are still read";
}

TEST(ConfigLimits, AConfigSharingOneSpecEverywhereIsWithinTheBudget) {
  // 60,000 module configs each merging a shared map: every merge is legitimate.
  std::string text = "quantization_spec:\n  base: &base\n    op_state_spec: {}\n"
                     "quantization_config:\n  module_name_configs:\n";
  const int keys = 60'000;
  for (int i = 0; i < keys; ++i)
    text += "    m" + std::to_string(i) + ":\n      <<: *base\n";
  ConfigDocument doc = read_config(text, Format::Yaml);
  EXPECT_TRUE(with_code(doc, "alias-expansion").empty());
  EXPECT_EQ(doc.keys.size(), static_cast<std::size_t>(keys));
  EXPECT_TRUE(doc.unknown_fields.empty());
}

TEST(ConfigLimits, ContextStillWorksAfterADeepValue) {
  std::string text =
      around(repeat("[", kHostileDepth) + repeat("]", kHostileDepth)) + "    lay: {}\n";
  ConfigDocument doc = read_config(text, Format::Yaml);
  CursorContext ctx = context_at(doc, {5, 7});
  EXPECT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.typed, "lay");
  // A cursor inside the deep value is nothing to complete, and no crash.
  ctx = context_at(doc, {2, kFirstTooDeep + 10});
  EXPECT_EQ(ctx.kind, CursorContext::Kind::None);
}

TEST(ConfigLimits, ASequenceItemAfterTheRootMappingIsReportedNotLoopedOn) {
  // Found by the fuzzer: the reader looped for ever on a top-level `- ` after a mapping.
  ConfigDocument doc =
      read_config("quantization_config:\n  module_name_configs: {x: 1}\n- b\n", Format::Yaml);
  ASSERT_EQ(doc.problems.size(), 1u);
  EXPECT_EQ(doc.problems[0].range.start, (Position{2, 0}));
  EXPECT_NE(doc.problems[0].message.find("unexpected content"), std::string::npos);
  EXPECT_EQ(doc.keys.size(), 1u);
}

TEST(ConfigLimits, LineEndsByteOrderMarkNulAndInvalidUtf8) {
  // CR-only and CRLF line ends: the key is on line 2 either way, as LSP counts lines.
  for (const std::string eol : {"\r", "\r\n", "\n"}) {
    ConfigDocument doc = read_config("\xEF\xBB\xBFquantization_config:" + eol +
                                         "  module_name_configs:" + eol + "    layer1: {}" + eol,
                                     Format::Yaml);
    ASSERT_EQ(doc.keys.size(), 1u) << "line end " << static_cast<int>(eol[0]) << eol.size();
    EXPECT_EQ(doc.keys[0].range, (Range{{2, 4}, {2, 10}}));
    EXPECT_TRUE(doc.problems.empty()) << doc.problems.front().message;
  }
  // A NUL byte and bytes that are not UTF-8 are kept as written, never a crash.
  std::string odd =
      std::string("quantization_config:\n  module_name_configs:\n    a\0b\xFF\xC3: {}\n", 53);
  ConfigDocument doc = read_config(odd, Format::Yaml);
  ASSERT_EQ(doc.keys.size(), 1u);
  EXPECT_EQ(doc.keys[0].text, std::string("a\0b\xFF\xC3", 5));
  // Escapes that name no character (a lone surrogate, beyond U+10FFFF) become U+FFFD.
  doc = read_config("{\"quantization_config\": {\"module_name_configs\": "
                    "{\"a\\udc00\\UFFFFFFFF\": {}}}}",
                    Format::Json);
  ASSERT_EQ(doc.keys.size(), 1u);
  EXPECT_EQ(doc.keys[0].text, "a\xEF\xBF\xBD\xEF\xBF\xBD");
  doc =
      read_config("quantization_config:\n  module_name_configs:\n    \"a\\udc00\\UFFFFFFFF\": {}\n",
                  Format::Yaml);
  ASSERT_EQ(doc.keys.size(), 1u);
  EXPECT_EQ(doc.keys[0].text, "a\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ConfigLimits, AVeryLongLineIsOneKey) {
  std::string key(4 << 20, 'x'); // 4 MB on one line
  ConfigDocument doc = read_config(
      "quantization_config:\n  module_name_configs:\n    " + key + ": {}\n", Format::Yaml);
  ASSERT_EQ(doc.keys.size(), 1u);
  EXPECT_EQ(doc.keys[0].text.size(), key.size());
  EXPECT_EQ(doc.keys[0].byte_cols.back(), 4 + static_cast<int>(key.size()));
}

TEST(ConfigLimits, AnAliasOfAnAnchorInsideACollectionKeyIsSafe) {
  // Found by the fuzzer: the anchor's node was freed with the key it was written in.
  ConfigDocument doc = read_config("quantization_config: {{&a {op_state_spec: {}}: 1},\n"
                                   "  module_name_configs: {x: *a}, global_config: *a}\n",
                                   Format::Yaml);
  EXPECT_EQ(doc.keys.size(), 1u);
}
