#include "annotations.h"
#include "opscope/features/diagnostics.h"
#include "opscope/index/query.h"
#include "small_model.h"

#include <gtest/gtest.h>

using namespace opscope;
using namespace opscope::features;
using opscope::testing::Annotations;

namespace {

struct Checked {
  Annotations source;
  std::vector<Diagnostic> diagnostics;
};

Checked check(const std::string& annotated, bool with_model = true,
              config::Format format = config::Format::Yaml) {
  static const index::Index index = opscope::testing::small_resnet();
  Model model{&index, index::Compressor::Quantizer};
  Annotations a(annotated);
  auto doc = config::read_config(a.code(), format);
  return {a, diagnose(doc, with_model ? &model : nullptr)};
}

const Diagnostic* with_code(const std::vector<Diagnostic>& ds, const std::string& code) {
  for (const auto& d : ds)
    if (d.code == code)
      return &d;
  return nullptr;
}

} // namespace

TEST(Diagnostics, PatternMatchingNothingSuggestsRealNamesAsFixes) {
  auto c = check(R"(quantization_config:
  module_name_configs:
    [[layer9.*]]: null
    layer1\..*: null
)");
  ASSERT_EQ(c.diagnostics.size(), 1u);
  const Diagnostic& d = c.diagnostics[0];
  EXPECT_EQ(d.code, "no-match");
  EXPECT_EQ(d.severity, Severity::Warning);
  EXPECT_EQ(d.range, c.source.range());
  EXPECT_NE(d.message.find("`layer9.*` matches no module"), std::string::npos) << d.message;
  ASSERT_FALSE(d.fixes.empty());
  EXPECT_EQ(d.fixes[0].edit.new_text, "layer1.*") << d.message;
  EXPECT_EQ(d.fixes[0].edit.range, c.source.range());
}

TEST(Diagnostics, LiteralOpNameSuggestsNearestOpsInScope) {
  auto c = check(R"(quantization_config:
  global_config:
    op_name_config:
      "conv2d_9": null
)");
  ASSERT_EQ(c.diagnostics.size(), 1u);
  ASSERT_FALSE(c.diagnostics[0].fixes.empty());
  EXPECT_EQ(c.diagnostics[0].fixes[0].edit.new_text, "\"conv2d_1\"") << "keeps the user's quotes";
}

TEST(Diagnostics, InvalidRegexIsAnErrorAtItsColumn) {
  auto c = check(R"(quantization_config:
  module_name_configs:
    layer1[[(]].*: null
    "x[[*]]*": null
)");
  ASSERT_EQ(c.diagnostics.size(), 2u);
  EXPECT_EQ(c.diagnostics[0].code, "invalid-regex");
  EXPECT_EQ(c.diagnostics[0].severity, Severity::Error);
  EXPECT_NE(c.diagnostics[0].message.find("missing )"), std::string::npos)
      << c.diagnostics[0].message;
  EXPECT_EQ(c.diagnostics[0].range, c.source.range(0));
  EXPECT_EQ(c.diagnostics[1].code, "invalid-regex") << c.diagnostics[1].message;
  EXPECT_EQ(c.diagnostics[1].range, c.source.range(1)) << c.diagnostics[1].message;
}

TEST(Diagnostics, PythonOnlyRegexGetsItsOwnWarning) {
  auto c = check(R"(quantization_config:
  module_name_configs:
    (?!fc).*: null
)");
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].code, "python-only-regex");
  EXPECT_EQ(c.diagnostics[0].severity, Severity::Warning);
  EXPECT_NE(c.diagnostics[0].message.find("look-ahead"), std::string::npos);
}

TEST(Diagnostics, ModuleTypeMustBeFullyQualified) {
  auto c = check(R"(quantization_config:
  module_type_configs:
    [[Conv2d]]: null
    [[torch.nn.Linear]]: null
    torch.nn.modules.conv.Conv2d: null
    [[torch.nn.modules.conv.Conv3d]]: null
)");
  ASSERT_EQ(c.diagnostics.size(), 3u);
  EXPECT_EQ(c.diagnostics[0].code, "module-type-not-qualified");
  EXPECT_EQ(c.diagnostics[0].severity, Severity::Error);
  ASSERT_EQ(c.diagnostics[0].fixes.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].fixes[0].edit.new_text, "torch.nn.modules.conv.Conv2d");
  EXPECT_EQ(c.diagnostics[1].code, "module-type-not-qualified");
  EXPECT_EQ(c.diagnostics[1].fixes.at(0).edit.new_text, "torch.nn.modules.linear.Linear");
  EXPECT_EQ(c.diagnostics[2].code, "no-match");
  EXPECT_EQ(c.diagnostics[2].severity, Severity::Warning);
  EXPECT_EQ(c.diagnostics[2].fixes.at(0).edit.new_text, "torch.nn.modules.conv.Conv2d");

  // Without a model a dot-less type is still certainly wrong.
  auto no_model = check("quantization_config:\n  module_type_configs:\n    Linear: null\n", false);
  ASSERT_EQ(no_model.diagnostics.size(), 1u);
  EXPECT_EQ(no_model.diagnostics[0].code, "module-type-not-qualified");
}

TEST(Diagnostics, OpTypesTheCompressorCannotCompressOrThatAreAbsent) {
  auto c = check(R"(quantization_config:
  global_config:
    op_type_config:
      relu: null
      softmax: null
      conv2d: null
  module_type_configs:
    torch.nn.modules.linear.Linear:
      op_type_config:
        conv2d: null
)");
  ASSERT_EQ(c.diagnostics.size(), 3u);
  EXPECT_EQ(c.diagnostics[0].code, "not-compressible");
  EXPECT_NE(c.diagnostics[0].message.find("does not compress `relu`"), std::string::npos);
  EXPECT_NE(c.diagnostics[0].message.find("`conv2d`, `add`, `linear`"), std::string::npos)
      << c.diagnostics[0].message;
  EXPECT_EQ(c.diagnostics[1].code, "no-match");
  EXPECT_NE(c.diagnostics[1].message.find("no op of type `softmax`"), std::string::npos);
  EXPECT_EQ(c.diagnostics[2].code, "no-match");
  EXPECT_NE(c.diagnostics[2].message.find("inside modules of type"), std::string::npos);
}

TEST(Diagnostics, OpNameScopedUnderAModuleOnlySeesItsOps) {
  auto c = check(R"(quantization_config:
  module_name_configs:
    layer1\.0:
      op_name_config:
        linear: null
        conv2d_1: null
)");
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_NE(c.diagnostics[0].message.find("inside modules matching `layer1\\.0`"),
            std::string::npos)
      << c.diagnostics[0].message;
}

// `opscope check` and the language server pass the lookups built when the model loaded:
// a scoped op name still sees the ops of the scope's submodules, and only those.
TEST(Diagnostics, ScopedOpNamesThroughTheLoadedModelsLookups) {
  static const index::Index index = opscope::testing::small_resnet();
  static const index::QueryEngine queries(index);
  Model model{&index, index::Compressor::Quantizer, &queries};
  auto doc = config::read_config(R"(quantization_config:
  module_name_configs:
    layer1\.0:
      op_name_config:
        conv2d_1: null
        conv2d_2: null
  module_type_configs:
    models.resnet.BasicBlock:
      op_type_config:
        conv2d: null
)",
                                 config::Format::Yaml);
  auto ds = diagnose(doc, &model);
  // And coreai-opt's resolution: layer1.0's name key takes that block from the type key.
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[1].code, "partly-overridden");
  EXPECT_EQ(ds[1].range.start.line, 7);
  EXPECT_EQ(ds[0].range.start.line, 5);
  EXPECT_EQ(ds[0].message, "`conv2d_2` matches no op inside modules matching `layer1\\.0`; "
                           "did you mean `conv2d_1`?")
      << ds[0].message;
}

TEST(Diagnostics, AliasedKeysAreCheckedAcrossEveryPlaceTheyAreMerged) {
  auto c = check(R"(quantization_spec:
  cfg: &cfg
    op_name_config:
      linear: null
quantization_config:
  module_name_configs:
    conv1: *cfg
    fc: *cfg
)");
  EXPECT_TRUE(c.diagnostics.empty()) << c.diagnostics[0].message;
}

TEST(Diagnostics, DuplicatesSyntaxAndTheMissingModel) {
  std::vector<Diagnostic> ds;
  {
    static const index::Index index = opscope::testing::small_resnet();
    auto doc = config::read_config(R"(quantization_config:
  execution_mode: eager
  module_name_configs:
    fc: null
    "fc": null
    "broken
)",
                                   config::Format::Yaml);
    ds = diagnose(doc, nullptr, ModelProblem{"no model: add opscope.yaml", Severity::Warning});
  }
  ASSERT_NE(with_code(ds, "no-model"), nullptr);
  EXPECT_EQ(with_code(ds, "no-model")->range.start.line, 0);
  ASSERT_NE(with_code(ds, "duplicate-key"), nullptr);
  EXPECT_EQ(with_code(ds, "duplicate-key")->range.start.line, 4);
  ASSERT_NE(with_code(ds, "syntax"), nullptr);
  EXPECT_EQ(with_code(ds, "syntax")->severity, Severity::Error);
  EXPECT_EQ(with_code(ds, "no-match"), nullptr) << "nothing is matched without a model";
}

TEST(Diagnostics, ExecutionModeMustMatchTheIndex) {
  auto c = check("quantization_config:\n  execution_mode: eager\n");
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].code, "execution-mode");
  EXPECT_EQ(check("quantization_config:\n  execution_mode: graph\n").diagnostics.size(), 0u);
  EXPECT_EQ(check("quantization_config:\n  execution_mode: turbo\n").diagnostics.at(0).severity,
            Severity::Error);
}

TEST(Diagnostics, JsonConfigsToo) {
  auto c = check(R"({"quantization_config": {"module_name_configs": {[["layer9\\..*"]]: null}}})",
                 true, config::Format::Json);
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].range, c.source.range());
  ASSERT_FALSE(c.diagnostics[0].fixes.empty());
  EXPECT_EQ(c.diagnostics[0].fixes[0].edit.new_text, "\"layer1\\\\..*\"");
}

TEST(Diagnostics, UnknownFieldIsAnErrorWithTheNearestFieldAsFix) {
  auto c = check(R"(quantization_config:
  [[module_name_config]]:
    fc: null
)");
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].code, "unknown-field");
  EXPECT_EQ(c.diagnostics[0].severity, Severity::Error);
  EXPECT_EQ(c.diagnostics[0].range, c.source.range());
  ASSERT_FALSE(c.diagnostics[0].fixes.empty());
  EXPECT_EQ(c.diagnostics[0].fixes[0].edit.new_text, "module_name_configs");
}

// A module whose weights exist but whose forward never runs (an unused head, a layer the
// forward skips) has no ops in the index: the key is real, only idle, and a "did you mean"
// towards another module would send the user the wrong way.
TEST(Diagnostics, KeyOnAModuleThatNeverRunsSaysSoInsteadOfSuggestingAnother) {
  index::Index index = opscope::testing::small_resnet();
  index.parameters.push_back({"head.proj.weight", {}, {4, 8}, "float32"});
  index.rebuild_lookups();
  Model model{&index, index::Compressor::Quantizer};
  Annotations a(R"(quantization_config:
  module_name_configs:
    [[head\.proj]]: null
    [[head.*]]: null
    [[layer9]]: null
)");
  std::vector<Diagnostic> ds =
      diagnose(config::read_config(a.code(), config::Format::Yaml), &model);
  ASSERT_EQ(ds.size(), 3u);
  EXPECT_EQ(ds[0].code, "no-match");
  EXPECT_EQ(ds[0].message.rfind("`head\\.proj` matches `head.proj`, a module of the model that "
                                "never runs in forward()",
                                0),
            0u)
      << ds[0].message;
  EXPECT_TRUE(ds[0].fixes.empty());
  EXPECT_NE(ds[1].message.find("matches `head`, a module of the model that never runs"),
            std::string::npos)
      << ds[1].message; // the owner's parent is idle too
  EXPECT_NE(ds[2].message.find("`layer9` matches no module"), std::string::npos) << ds[2].message;
}
