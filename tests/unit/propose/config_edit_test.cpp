// The text side of a proposal (core/dialects/coreai/propose's config_edit.h): entries land at the
// end of module_name_configs (where coreai-opt's resolution lets them win), the rest of the file
// stays as written, and what cannot be edited safely is refused with a message.
#include "opscope/propose/config_edit.h"

#include "opscope/coreai/config/document.h"

#include <gtest/gtest.h>

namespace opscope::propose {
namespace {

const std::vector<ProposedEntry> kEntries = {
    {"layer1.0.conv1",
     {{"op_state_spec",
       {{"weight", {{"dtype", "int4"}, {"granularity", {{"type", "per_channel"}}}}}}}}},
    {"fc", {{"op_state_spec", {{"weight", nullptr}}}}},
};

std::vector<std::string> name_keys(const std::string& text, config::Format format) {
  std::vector<std::string> keys;
  for (const config::PatternKey& k : config::read_config(text, format).keys)
    if (k.table == config::Table::ModuleName && k.scope.kind == config::Scope::Kind::Global)
      keys.push_back(k.text);
  return keys;
}

TEST(ProposeEdit, AppendsToTheEndOfAnExistingBlockTable) {
  const std::string text = "quantization_config:\n"
                           "  module_name_configs:\n"
                           "    layer1: null   # kept\n"
                           "\n"
                           "  global_config:\n"
                           "    op_state_spec: {weight: {dtype: int8}}\n";
  const std::string out = with_entries(config::read_config(text, config::Format::Yaml), kEntries);
  EXPECT_EQ(out, "quantization_config:\n"
                 "  module_name_configs:\n"
                 "    layer1: null   # kept\n"
                 "    \"layer1\\\\.0\\\\.conv1\": {op_state_spec: {weight: {dtype: int4, "
                 "granularity: {type: per_channel}}}}\n"
                 "    \"fc\": {op_state_spec: {weight: null}}\n"
                 "\n"
                 "  global_config:\n"
                 "    op_state_spec: {weight: {dtype: int8}}\n");
  EXPECT_EQ(name_keys(out, config::Format::Yaml),
            (std::vector<std::string>{"layer1", R"(layer1\.0\.conv1)", "fc"}));
}

TEST(ProposeEdit, CreatesTheTableAndReplacesANullOne) {
  const std::string absent = "# mine\nquantization_config:\n  execution_mode: eager\n";
  const std::string out = with_entries(config::read_config(absent, config::Format::Yaml), kEntries);
  EXPECT_EQ(out.rfind(absent, 0), 0u) << out;
  EXPECT_EQ(name_keys(out, config::Format::Yaml),
            (std::vector<std::string>{R"(layer1\.0\.conv1)", "fc"}));
  const std::string null_table = "quantization_config:\n  module_name_configs: null\n";
  EXPECT_EQ(name_keys(with_entries(config::read_config(null_table, config::Format::Yaml), kEntries),
                      config::Format::Yaml),
            (std::vector<std::string>{R"(layer1\.0\.conv1)", "fc"}));
}

TEST(ProposeEdit, RefusesWhatItCannotEditInPlace) {
  const std::string flow = "quantization_config:\n  module_name_configs: {fc: null}\n";
  EXPECT_THROW(with_entries(config::read_config(flow, config::Format::Yaml), kEntries), EditError);
  const std::string python = "from coreai_opt import QuantizerConfig\n"
                             "config = QuantizerConfig.from_dict({'quantization_config': {}})\n";
  EXPECT_THROW(with_entries(config::read_config(python, config::Format::Python), kEntries),
               EditError);
}

TEST(ProposeEdit, JsonKeepsTheUsersEntriesFirstAndMovesARepeatedKeyLast) {
  const std::string text =
      R"({"quantization_config": {"module_name_configs": {"fc": {}, "layer1": null}}})";
  const std::string out = with_entries(config::read_config(text, config::Format::Json), kEntries);
  EXPECT_EQ(name_keys(out, config::Format::Json),
            (std::vector<std::string>{"layer1", R"(layer1\.0\.conv1)", "fc"}));
}

TEST(ProposeEdit, ExactPatternEscapesEveryRegexCharacter) {
  EXPECT_EQ(exact_pattern("model.layers.0.mlp"), R"(model\.layers\.0\.mlp)");
  EXPECT_EQ(exact_pattern("a+b(c)[d]"), R"(a\+b\(c\)\[d\])");
}

TEST(ProposeEdit, UnifiedDiffIsOneHunkWithContext) {
  const std::string before = "a\nb\nc\nd\ne\nf\n", after = "a\nb\nc\nd\nX\ne\nf\n";
  EXPECT_EQ(unified_diff(before, after, "c.yaml"), "--- c.yaml\n+++ c.yaml (proposed)\n"
                                                   "@@ -2,5 +2,6 @@\n b\n c\n d\n+X\n e\n f\n");
  EXPECT_EQ(unified_diff(before, before, "c.yaml"), "");
}

// The editor's edit: applying `changed_lines` to the text gives exactly the proposed text.
std::string applied(const std::string& before, const LineChange& change) {
  std::size_t begin = 0, end = 0;
  for (int line = 0, at = 0; at <= static_cast<int>(before.size()); ++line) {
    if (line == change.replaced.start.line)
      begin = static_cast<std::size_t>(at);
    if (line == change.replaced.end.line) {
      end = static_cast<std::size_t>(at);
      break;
    }
    const std::size_t next = before.find('\n', static_cast<std::size_t>(at));
    at = next == std::string::npos ? static_cast<int>(before.size()) + 1
                                   : static_cast<int>(next) + 1;
    end = before.size();
  }
  return before.substr(0, begin) + change.text + before.substr(std::min(end, before.size()));
}

TEST(ProposeEdit, ChangedLinesAreTheLinesBetweenTheCommonHeadAndTail) {
  const std::string before = "a\nb\nc\n", after = "a\nb\nX\nY\nc\n";
  const LineChange change = changed_lines(before, after);
  EXPECT_EQ(change.replaced, (config::Range{{2, 0}, {2, 0}}));
  EXPECT_EQ(change.text, "X\nY\n");
  EXPECT_EQ(applied(before, change), after);
  // A last line without a newline gets one: it is replaced, to one past the last line.
  const std::string bare = "quantization_config:\n  global_config: null";
  const std::string out = with_entries(config::read_config(bare, config::Format::Yaml), kEntries);
  const LineChange appended = changed_lines(bare, out);
  EXPECT_EQ(appended.replaced, (config::Range{{1, 0}, {2, 0}}));
  EXPECT_EQ(applied(bare, appended), out);
}

} // namespace
} // namespace opscope::propose
