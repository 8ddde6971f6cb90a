// Two config objects in one Python file are two configs: each resolved on its own (issue 22,
// item 2). On small_convnet.h's model: `config` names layer3's subtree, `extra` is another
// QuantizerConfig limited to a conv by only_for; nothing of one may be reported as overriding
// the other.
#include "opscope/features/diagnostics.h"
#include "opscope/resolve/resolve.h"
#include "small_convnet.h"

#include <gtest/gtest.h>

#include <string>

namespace opscope::resolve {
namespace {

using testing::small_model;

const std::string kTwoObjects = R"(from coreai_opt.quantization import QuantizerConfig
import torch.nn as nn

config = QuantizerConfig(
    module_name_configs={r"layer3\..*": {"op_state_spec": None}},
)
config = config.set_module_name("fc", None)

extra = QuantizerConfig().only_for("layer3.0.conv2", nn.Conv2d)
)";

TEST(ConfigObjects, EachCallOrVariableIsItsOwnObject) {
  config::ConfigDocument doc = config::read_config(kTwoObjects, config::Format::Python);
  ASSERT_EQ(doc.objects.size(), 2u);
  for (const config::PatternKey& key : doc.keys) {
    bool first = key.text == "layer3\\..*" || key.text == "fc";
    EXPECT_EQ(key.config_object, first ? 0 : 1) << key.text;
  }
}

TEST(ConfigObjects, NoEntryIsOverriddenByAnotherObjectsEntry) {
  const index::Index index = small_model();
  config::ConfigDocument doc = config::read_config(kTwoObjects, config::Format::Python);
  features::Model model{&index, index::Compressor::Quantizer};
  for (const features::Diagnostic& d : features::diagnose(doc, &model)) {
    EXPECT_EQ(d.message.find("layer3\\..*"), std::string::npos)
        << d.code << " at line " << d.range.start.line + 1 << ": " << d.message;
  }
  // Each object resolves its own entries: `extra`'s conv key decides conv2d_2 there.
  Resolution second = resolve_quantizer(doc, index, nullptr, 1);
  bool conv_decided = false;
  for (const OpDecision& d : second.ops)
    if (index.ops[static_cast<std::size_t>(d.op)].name == "conv2d_2") {
      ASSERT_EQ(d.decider.kind, Decider::Kind::Key);
      EXPECT_EQ(doc.keys[static_cast<std::size_t>(d.decider.key)].config_object, 1);
      conv_decided = true;
    }
  EXPECT_TRUE(conv_decided);
  Resolution first = resolve_quantizer(doc, index, nullptr, 0);
  for (const OpDecision& d : first.ops) {
    if (d.decider.kind == Decider::Kind::Key) {
      EXPECT_EQ(doc.keys[static_cast<std::size_t>(d.decider.key)].config_object, 0);
    }
  }
}

TEST(ConfigObjects, AYamlDocumentIsOneObject) {
  config::ConfigDocument doc = config::read_config(
      "quantization_config:\n  global_config: {}\n  module_name_configs:\n    fc: {}\n",
      config::Format::Yaml);
  ASSERT_EQ(doc.objects.size(), 1u);
  EXPECT_TRUE(doc.objects[0].global_config_range);
}

} // namespace
} // namespace opscope::resolve
