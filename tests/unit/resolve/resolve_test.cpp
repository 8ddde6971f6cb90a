// The resolution's rules on a hand-built ResNet-like index, one rule per test. The judge of
// the same rules on real models is tests/fidelity/test_resolve_fidelity.py (coreai-opt's
// own prepare()).
#include "opscope/resolve/resolve.h"
#include "small_convnet.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace opscope::resolve {
namespace {

using index::Index;
using testing::small_model;

// op name -> the deciding entry's last path element ("" for coreai-opt's default global),
// with " fp" when it is left in full precision.
std::map<std::string, std::string> explain(const std::string& yaml) {
  static const Index index = small_model();
  config::ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
  EXPECT_TRUE(doc.problems.empty());
  Resolution r = resolve_quantizer(doc, index);
  std::map<std::string, std::string> out;
  for (const OpDecision& d : r.ops) {
    std::vector<std::string> path = decider_path(doc, d.decider);
    out[index.ops[static_cast<std::size_t>(d.op)].name] =
        (path.empty() ? "" : path.back()) + (d.full_precision ? " fp" : "");
  }
  return out;
}

TEST(Resolve, WithoutEntriesTheDefaultGlobalConfigDecidesEveryOp) {
  auto r = explain("quantization_config:\n  execution_mode: graph\n");
  ASSERT_EQ(r.size(), 5u);
  for (const auto& [op, entry] : r)
    EXPECT_EQ(entry, "") << op;
}

TEST(Resolve, NullGlobalConfigLeavesUnclaimedOpsInFullPrecision) {
  auto r = explain("quantization_config:\n  global_config: null\n  module_name_configs:\n"
                   "    fc: {}\n");
  EXPECT_EQ(r["conv2d"], "global_config fp");
  EXPECT_EQ(r["linear"], "fc");
}

TEST(Resolve, ASpecificNameKeyBeforeALaterParentKeyGovernsNothing) {
  auto r = explain("quantization_config:\n  module_name_configs:\n"
                   "    'layer3\\.0\\.conv1': {}\n    layer3: {}\n");
  EXPECT_EQ(r["conv2d_1"], "layer3");
  EXPECT_EQ(r["conv2d_2"], "layer3");
}

TEST(Resolve, ASpecificNameKeyAfterItsParentKeyWins) {
  auto r = explain("quantization_config:\n  module_name_configs:\n"
                   "    layer3: {}\n    'layer3\\.0\\.conv1': {}\n");
  EXPECT_EQ(r["conv2d_1"], "layer3\\.0\\.conv1");
  EXPECT_EQ(r["conv2d_2"], "layer3");
}

TEST(Resolve, NameKeysBeatTypeKeysWhateverTheOrder) {
  auto r = explain("quantization_config:\n  module_name_configs:\n    conv1: {}\n"
                   "  module_type_configs:\n    torch.nn.modules.conv.Conv2d: {}\n");
  EXPECT_EQ(r["conv2d"], "conv1");
  EXPECT_EQ(r["conv2d_1"], "torch.nn.modules.conv.Conv2d");
}

TEST(Resolve, ALaterContainerTypeClaimsTheConvsOfAnEarlierConvKey) {
  auto r = explain("quantization_config:\n  module_type_configs:\n"
                   "    torch.nn.modules.conv.Conv2d: {}\n    m.BasicBlock: {}\n");
  EXPECT_EQ(r["conv2d"], "torch.nn.modules.conv.Conv2d");
  EXPECT_EQ(r["conv2d_1"], "m.BasicBlock");
  EXPECT_EQ(r["conv2d_3"], "m.BasicBlock");
}

TEST(Resolve, AnEarlierContainerTypeLosesItsConvsToALaterConvKey) {
  auto r = explain("quantization_config:\n  module_type_configs:\n"
                   "    m.BasicBlock: {}\n    torch.nn.modules.conv.Conv2d: {}\n");
  EXPECT_EQ(r["conv2d_1"], "torch.nn.modules.conv.Conv2d");
}

TEST(Resolve, OpNameConfigBeatsOpTypeConfigInsideOneModuleConfig) {
  auto r = explain("quantization_config:\n  module_name_configs:\n    layer3:\n"
                   "      op_name_config:\n        conv2d_2: {}\n"
                   "      op_type_config:\n        conv2d: null\n");
  EXPECT_EQ(r["conv2d_1"], "conv2d fp");
  EXPECT_EQ(r["conv2d_2"], "conv2d_2");
  EXPECT_EQ(r["conv2d_3"], ""); // outside layer3: the op tables do not reach it
}

TEST(Resolve, OpTablesAreInheritedByChildModules) {
  auto r = explain("quantization_config:\n  global_config:\n    op_name_config:\n"
                   "      'conv2d_[13]': null\n");
  EXPECT_EQ(r["conv2d_1"], "conv2d_[13] fp");
  EXPECT_EQ(r["conv2d_3"], "conv2d_[13] fp");
  EXPECT_EQ(r["conv2d_2"], "global_config");
}

TEST(Resolve, AKeyWrittenTwiceKeepsItsFirstPlaceAndItsLastValue) {
  // PyYAML builds a dict: the second `layer3` replaces the first's value in its place, so
  // the later 'layer3\.0\.conv1' still comes after it and wins.
  auto r = explain("quantization_config:\n  module_name_configs:\n    layer3: {}\n"
                   "    'layer3\\.0\\.conv1': {}\n    layer3: null\n");
  EXPECT_EQ(r["conv2d_1"], "layer3\\.0\\.conv1");
  EXPECT_EQ(r["conv2d_2"], "layer3 fp");
}

TEST(Resolve, AKeyRe2CannotRunIsReportedAndMatchesNothing) {
  config::ConfigDocument doc = config::read_config(
      "quantization_config:\n  module_name_configs:\n    '(?!fc).*': null\n", config::Format::Yaml);
  Resolution r = resolve_quantizer(doc, small_model());
  ASSERT_EQ(r.unresolved.size(), 1u);
  for (const OpDecision& d : r.ops)
    EXPECT_EQ(d.decider.kind, Decider::Kind::DefaultGlobal);
}

TEST(Resolve, ModulesRecordWhetherTheyWereMatchedOrInherited) {
  Index index = small_model();
  config::ConfigDocument doc = config::read_config(
      "quantization_config:\n  module_name_configs:\n    layer3: {}\n", config::Format::Yaml);
  Resolution r = resolve_quantizer(doc, index);
  const ModuleDecision& layer3 = r.modules[static_cast<std::size_t>(2)];
  const ModuleDecision& block = r.modules[static_cast<std::size_t>(3)];
  EXPECT_EQ(index.modules[2].name, "layer3");
  EXPECT_TRUE(layer3.direct);
  EXPECT_FALSE(block.direct);
  EXPECT_EQ(block.decider, layer3.decider);
  EXPECT_EQ(decider_line(doc, block.decider), 2);
}

} // namespace
} // namespace opscope::resolve
