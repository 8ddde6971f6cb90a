// The resolution's rules on a hand-built ResNet-like index, one rule per test. The judge of
// the same rules on real models is tests/fidelity/test_resolve_fidelity.py (coreai-opt's
// own prepare()).
#include "opscope/resolve/resolve.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace opscope::resolve {
namespace {

using index::Index;

const std::string kConv = "torch.nn.modules.conv.Conv2d";
const std::string kBlock = "m.BasicBlock";

// root > conv1 (conv2d); layer3 > layer3.0 (BasicBlock) > conv1 (conv2d_1), conv2 (conv2d_2);
// layer4 > layer4.0 (BasicBlock) > conv1 (conv2d_3); fc (linear).
Index small_model() {
  Index index;
  auto module = [&](std::string name, std::string type, int parent) {
    index::Module m;
    m.name = std::move(name);
    m.type = std::move(type);
    m.parent = parent;
    index.modules.push_back(m);
    int id = static_cast<int>(index.modules.size()) - 1;
    if (parent >= 0)
      index.modules[static_cast<std::size_t>(parent)].children.push_back(id);
    return id;
  };
  auto op = [&](std::string name, std::string type, int owner) {
    index::Op o;
    o.name = std::move(name);
    o.type = std::move(type);
    o.compressors = static_cast<std::uint8_t>(index::Compressor::Quantizer);
    for (int m = owner; m >= 0; m = index.modules[static_cast<std::size_t>(m)].parent)
      o.module_stack.insert(o.module_stack.begin(),
                            {index.modules[static_cast<std::size_t>(m)].name,
                             index.modules[static_cast<std::size_t>(m)].type});
    index.ops.push_back(o);
    index.modules[static_cast<std::size_t>(owner)].ops.push_back(
        static_cast<int>(index.ops.size()) - 1);
  };
  int root = module("", "m.Net", -1);
  op("conv2d", "conv2d", module("conv1", kConv, root));
  int layer3 = module("layer3", "torch.nn.modules.container.Sequential", root);
  int block3 = module("layer3.0", kBlock, layer3);
  op("conv2d_1", "conv2d", module("layer3.0.conv1", kConv, block3));
  op("conv2d_2", "conv2d", module("layer3.0.conv2", kConv, block3));
  int layer4 = module("layer4", "torch.nn.modules.container.Sequential", root);
  int block4 = module("layer4.0", kBlock, layer4);
  op("conv2d_3", "conv2d", module("layer4.0.conv1", kConv, block4));
  op("linear", "linear", module("fc", "torch.nn.modules.linear.Linear", root));
  index.rebuild_lookups();
  return index;
}

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
