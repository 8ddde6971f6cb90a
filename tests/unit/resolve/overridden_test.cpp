// `overridden` / `partly-overridden` on the resolution of a hand-built convnet.
#include "opscope/features/overridden.h"
#include "small_convnet.h"

#include <gtest/gtest.h>

namespace opscope::features {
namespace {

std::vector<Diagnostic> check(const std::string& yaml) {
  static const index::Index index = resolve::testing::small_model();
  config::ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
  return overridden_diagnostics(doc, index, resolve::resolve_quantizer(doc, index));
}

TEST(Overridden, ANameKeyBeforeItsParentKeyIsOverriddenByIt) {
  auto d = check("quantization_config:\n  module_name_configs:\n"
                 "    'layer3\\.0\\.conv1': {}\n    layer3: {}\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, "overridden");
  EXPECT_EQ(d[0].severity, Severity::Warning);
  EXPECT_EQ(d[0].range.start.line, 2);
  EXPECT_NE(d[0].message.find("none of the ops it matches (1 op): it goes to `layer3` (line 4)"),
            std::string::npos)
      << d[0].message;
  EXPECT_NE(d[0].message.find("`layer3` (line 4)"), std::string::npos) << d[0].message;
}

TEST(Overridden, AfterItsParentKeyTheParentIsOnlyPartlyOverridden) {
  auto d = check("quantization_config:\n  module_name_configs:\n"
                 "    layer3: {}\n    'layer3\\.0\\.conv1': {}\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, "partly-overridden");
  EXPECT_EQ(d[0].severity, Severity::Information);
  EXPECT_EQ(d[0].range.start.line, 2);
  EXPECT_NE(d[0].message.find("decides 1 of the 2 ops"), std::string::npos) << d[0].message;
}

TEST(Overridden, ATypeKeyShadowedByNameKeysNamesThem) {
  auto d = check("quantization_config:\n  module_type_configs:\n"
                 "    torch.nn.modules.conv.Conv2d: {}\n"
                 "  module_name_configs:\n    conv1: {}\n    'layer\\d': null\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, "overridden");
  EXPECT_NE(d[0].message.find("`conv1` (line 5)"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("`layer\\d` (line 6)"), std::string::npos) << d[0].message;
}

TEST(Overridden, EntriesThatDecideAllTheyMatchAreNotReported) {
  EXPECT_TRUE(check("quantization_config:\n  module_type_configs:\n"
                    "    m.BasicBlock: {}\n  module_name_configs:\n    fc: null\n")
                  .empty());
}

} // namespace
} // namespace opscope::features
