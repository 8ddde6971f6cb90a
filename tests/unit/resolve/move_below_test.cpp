// The quick fix of an `overridden` entry: move it below the last entry of its own table that
// takes its ops, keeping the YAML valid; nothing for JSON, Python or another table's winner.
#include "opscope/coreai/config/values.h"
#include "opscope/features/overridden.h"
#include "small_convnet.h"

#include <gtest/gtest.h>

namespace opscope::features {
namespace {

using config::Format;

std::vector<Diagnostic> check(const std::string& text, Format format = Format::Yaml) {
  static const index::Index index = resolve::testing::small_model();
  config::ConfigDocument doc = config::read_config(text, format);
  return overridden_diagnostics(doc, index, resolve::resolve_quantizer(doc, index));
}

// The document after applying `edit` (line/byte ranges).
std::string applied(const std::string& text, const TextEdit& edit) {
  auto offset = [&](config::Position p) {
    std::size_t at = 0;
    for (int line = 0; line < p.line; ++line)
      at = text.find('\n', at) + 1;
    return at + static_cast<std::size_t>(p.byte_col);
  };
  std::size_t from = offset(edit.range.start), to = offset(edit.range.end);
  return text.substr(0, from) + edit.new_text + text.substr(to);
}

std::vector<std::string> codes(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics)
    out.push_back(d.code);
  return out;
}

Fix only_fix(const std::vector<Diagnostic>& d) {
  EXPECT_EQ(d.size(), 1u);
  if (d.empty() || d[0].fixes.empty()) {
    ADD_FAILURE() << "no fix offered";
    return Fix{};
  }
  EXPECT_EQ(d[0].code, "overridden");
  EXPECT_EQ(d[0].fixes.size(), 1u);
  return d[0].fixes[0];
}

TEST(MoveBelow, MovesTheEntryWithItsCommentAndNestedBlockBelowTheLastOverrider) {
  const std::string yaml = "quantization_config:\n"
                           "  module_name_configs:\n"
                           "    # the first conv of layer3, in int4\n"
                           "    'layer3\\.0\\.conv1':\n"
                           "      op_state_spec:\n"
                           "        weight: {dtype: int4}  # 4 bits\n"
                           "\n"
                           "    layer3:\n"
                           "      op_state_spec: {weight: {dtype: int8}}\n"
                           "    fc: null\n"
                           "  global_config: {}\n";
  const Fix fix = only_fix(check(yaml));
  EXPECT_FALSE(fix.replacement);
  EXPECT_EQ(fix.title, "Move `layer3\\.0\\.conv1` below `layer3` (line 8) so that it wins");
  const std::string fixed = applied(yaml, fix.edit);
  EXPECT_EQ(fixed, "quantization_config:\n"
                   "  module_name_configs:\n"
                   "\n"
                   "    layer3:\n"
                   "      op_state_spec: {weight: {dtype: int8}}\n"
                   "    # the first conv of layer3, in int4\n"
                   "    'layer3\\.0\\.conv1':\n"
                   "      op_state_spec:\n"
                   "        weight: {dtype: int4}  # 4 bits\n"
                   "    fc: null\n"
                   "  global_config: {}\n");
  // Valid YAML that coreai-opt now resolves the other way: the moved entry wins its conv,
  // and `layer3` keeps the rest of its ops.
  EXPECT_TRUE(config::read_values(fixed, Format::Yaml).has_value());
  EXPECT_EQ(codes(check(fixed)), std::vector<std::string>{"partly-overridden"});
}

TEST(MoveBelow, ADocumentWithoutAFinalLineBreakStaysWellFormed) {
  const std::string yaml = "quantization_config:\n  module_name_configs:\n"
                           "    'layer3\\.0\\.conv1': {}\n    layer3: {}";
  const std::string fixed = applied(yaml, only_fix(check(yaml)).edit);
  EXPECT_EQ(fixed, "quantization_config:\n  module_name_configs:\n"
                   "    layer3: {}\n    'layer3\\.0\\.conv1': {}");
  EXPECT_EQ(codes(check(fixed)), std::vector<std::string>{"partly-overridden"});
}

TEST(MoveBelow, NoFixWhenAStrongerTableTakesTheOps) {
  // Name keys beat type keys whatever the order: moving the type key changes nothing.
  auto d = check("quantization_config:\n  module_type_configs:\n"
                 "    torch.nn.modules.conv.Conv2d: {}\n"
                 "  module_name_configs:\n    conv1: {}\n    'layer\\d': null\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, "overridden");
  EXPECT_TRUE(d[0].fixes.empty());
}

TEST(MoveBelow, NoFixForFlowStyleJsonOrPython) {
  for (auto [text, format] : std::vector<std::pair<std::string, Format>>{
           {"quantization_config:\n  module_name_configs: {'layer3\\.0\\.conv1': {}, layer3: {}}\n",
            Format::Yaml},
           {"{\"quantization_config\": {\"module_name_configs\": {\n"
            "  \"layer3\\\\.0\\\\.conv1\": {},\n  \"layer3\": {}}}}\n",
            Format::Json},
           {"from coreai_opt.quantization import QuantizerConfig\n"
            "config = QuantizerConfig(module_name_configs={\n"
            "    r'layer3\\.0\\.conv1': None,\n    'layer3': None,\n})\n",
            Format::Python}}) {
    auto d = check(text, format);
    ASSERT_EQ(d.size(), 1u) << text;
    EXPECT_EQ(d[0].code, "overridden") << text;
    EXPECT_TRUE(d[0].fixes.empty()) << text;
  }
}

} // namespace
} // namespace opscope::features
