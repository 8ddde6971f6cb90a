// The check of a config against coreai-opt 0.4.0's models: each kind of problem at the key or
// value written, with the code the editor shows. (The differential test compares the verdicts
// with coreai-opt itself on thousands of configs; these pin the ranges and messages.)
#include "opscope/features/schema_diagnostics.h"
#include "opscope/schema/check.h"

#include <gtest/gtest.h>

namespace opscope::schema {
namespace {

std::vector<Problem> check_yaml(const std::string& text, std::string_view root = {}) {
  return check(config::read_config(text, config::Format::Yaml), *builtin(), root);
}

const Problem* at_line(const std::vector<Problem>& problems, int line) {
  for (const Problem& p : problems)
    if (p.range.start.line == line)
      return &p;
  return nullptr;
}

TEST(SchemaCheck, AValidConfigHasNoProblem) {
  auto problems = check_yaml(R"(quantization_config:
  global_config:
    op_state_spec:
      weight: {dtype: int4, granularity: {type: per_channel, axis: 0}}
    op_input_spec: null
  module_name_configs:
    "layer1\\..*": null
)");
  EXPECT_TRUE(problems.empty()) << problems.front().message;
}

TEST(SchemaCheck, AWrongDtypeIsAnErrorAtTheValueWithTheValidNames) {
  auto problems = check_yaml(R"(quantization_config:
  global_config:
    op_state_spec:
      weight:
        dtype: int9
)");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, Problem::Kind::NotAllowed);
  EXPECT_STREQ(code(problems[0].kind), "schema-value");
  EXPECT_EQ(problems[0].range.start.line, 4);
  EXPECT_EQ(problems[0].range.start.byte_col, 15); // `int9`, not the key
  EXPECT_NE(problems[0].message.find("`int4`"), std::string::npos);
  EXPECT_FALSE(problems[0].suggestions.empty());
}

TEST(SchemaCheck, AMisspeltRegistryTypeSuggestsTheRegisteredOne) {
  auto problems = check_yaml(R"(quantization_config:
  global_config:
    op_state_spec:
      weight: {granularity: {type: per_chanel}}
)");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].suggestions, std::vector<std::string>{"per_channel"});
}

TEST(SchemaCheck, AKeyTheGranularityDoesNotTakeIsUnknownThere) {
  auto problems = check_yaml(R"(quantization_config:
  global_config:
    op_state_spec:
      weight:
        granularity: {type: per_channel, block_size: 32}
)");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, Problem::Kind::UnknownKey);
  EXPECT_NE(problems[0].message.find("PerChannelGranularity"), std::string::npos);
}

TEST(SchemaCheck, RangesLiteralsAndTypes) {
  auto problems = check_yaml(R"(kmeans_palettization_config:
  global_config:
    rounding_precision: -1
    enable_fast_kmeans_mode: maybe
    op_state_spec:
      weight: {n_bits: 17, granularity: {type: per_grouped_channel, group_size: 0}}
)");
  ASSERT_NE(at_line(problems, 2), nullptr);
  EXPECT_EQ(at_line(problems, 2)->kind, Problem::Kind::OutOfRange);
  ASSERT_NE(at_line(problems, 3), nullptr);
  EXPECT_EQ(at_line(problems, 3)->kind, Problem::Kind::WrongType);
  std::size_t on_spec_line = 0;
  for (const Problem& p : problems)
    on_spec_line += p.range.start.line == 5;
  EXPECT_EQ(on_spec_line, 2u); // n_bits and group_size
}

TEST(SchemaCheck, WeightOnlyCompressorsRefuseActivationSpecsWithCoreaiOptsWords) {
  auto problems = check_yaml(R"(magnitude_pruning_config:
  global_config:
    op_input_spec:
      "*": {target_sparsity: 0.5}
)");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, Problem::Kind::Combination);
  EXPECT_EQ(problems[0].range.start.line, 2);
  EXPECT_NE(problems[0].message.find("does not support op_input_spec"), std::string::npos);
}

TEST(SchemaCheck, ModuleLevelSpecsInGlobalConfigAreRefused) {
  auto problems = check_yaml(R"(quantization_config:
  global_config:
    module_state_spec:
      weight: {dtype: int8}
)");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("global_config cannot have"), std::string::npos);
}

TEST(SchemaCheck, AnchorsAndMergeKeysAreFollowedAsPyYamlDoes) {
  auto problems = check_yaml(R"(quantization_spec:
  w: &w {dtype: int4, qscheme: wrong}
  base: &base {dtype: int4}
quantization_config:
  global_config:
    op_state_spec:
      weight: *w
      bias:
        <<: *base
        dtype: uint9
)");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].range.start.line, 1); // written in the anchor, refused where used
  EXPECT_EQ(problems[1].range.start.line, 9); // the explicit key overrides the merged one
}

// A generated config writes `op_state_spec: *w8` for each of 50,000 keys, with a spec where a map
// of specs goes: the anchor is one wrong value, reported once (not 26,388 times), and the keys
// after the check's visit budget are still checked (a wrong dtype in the last entry).
TEST(SchemaCheck, AnAnchorUsedByManyKeysIsReportedOnceAndEveryKeyIsStillChecked) {
  std::string text = "quantization_spec:\n  w8: &w8\n    dtype: int8\nquantization_config:\n"
                     "  module_name_configs:\n";
  constexpr int kKeys = 50000;
  for (int i = 0; i < kKeys; ++i)
    text += "    'layer1\\.conv(_" + std::to_string(i) + ")?':\n" +
            (i + 1 < kKeys ? "      op_state_spec: *w8\n"
                           : "      op_state_spec: {weight: {dtype: int9}}\n");
  auto problems = check_yaml(text);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].range.start.line, 2); // `int8`, in the anchor
  EXPECT_EQ(problems[0].kind, Problem::Kind::WrongType);
  EXPECT_EQ(problems[1].range.start.line, 4 + 2 * kKeys); // the last key's `int9`
  EXPECT_EQ(problems[1].kind, Problem::Kind::NotAllowed);
}

TEST(SchemaCheck, ComputedKeysInASpecAreIgnoredByCoreaiOptSoAWarning) {
  auto problems = check_yaml(R"(quantization_config:
  global_config:
    op_state_spec:
      weight: {dtype: int8, n_bits: 8}
)");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, Problem::Kind::IgnoredKey);
  EXPECT_FALSE(problems[0].is_error());
}

TEST(SchemaCheck, JsonConfigsAreCheckedWithJsonTypes) {
  auto doc = config::read_config(
      R"({"quantization_config": {"global_config": {"op_state_spec": {"weight": {"dtype": 4}}}}})",
      config::Format::Json);
  auto problems = check(doc, *builtin());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, Problem::Kind::NotAllowed);
}

TEST(SchemaCheck, ADocumentWithoutItsRootKeyIsRefusedOnlyWhenTheProjectNamesTheCompressor) {
  std::string text = "global_config:\n  op_state_spec: {}\n";
  EXPECT_TRUE(check_yaml(text).empty());
  auto problems = check_yaml(text, "quantization_config");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("Found unexpected key 'global_config'"), std::string::npos);
  EXPECT_TRUE(check_yaml("", "quantization_config").empty()); // from_yaml: None, accepted
}

TEST(SchemaCheck, DiagnosticsCarryCodesAndQuickFixes) {
  auto doc = config::read_config(R"(quantization_config:
  global_config:
    op_state_spec:
      weight: {dtype: int9, qschme: symmetric}
)",
                                 config::Format::Yaml);
  auto diagnostics = features::schema_diagnostics(doc, *builtin());
  ASSERT_EQ(diagnostics.size(), 2u);
  // int9: an error; `qschme`: coreai-opt's spec drops unknown keys silently, so a warning.
  EXPECT_EQ(diagnostics[0].code, "schema-value");
  EXPECT_EQ(diagnostics[0].severity, features::Severity::Error);
  EXPECT_EQ(diagnostics[1].code, "schema-ignored-key");
  EXPECT_EQ(diagnostics[1].severity, features::Severity::Warning);
  ASSERT_FALSE(diagnostics[1].fixes.empty());
  EXPECT_EQ(diagnostics[1].fixes[0].edit.new_text, "qscheme");
}

} // namespace
} // namespace opscope::schema
