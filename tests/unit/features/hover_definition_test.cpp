#include "annotations.h"
#include "opscope/features/definition.h"
#include "opscope/features/hover.h"
#include "opscope/features/projected_size.h"
#include "small_model.h"

#include <gtest/gtest.h>

using namespace opscope;
using namespace opscope::features;
using opscope::testing::Annotations;

namespace {
const index::Index& model_index() {
  static const index::Index index = opscope::testing::small_resnet();
  return index;
}
} // namespace

TEST(Hover, PatternShowsCountsMatchesAndPrecedence) {
  Model model{&model_index(), index::Compressor::Quantizer};
  Annotations a(R"(quantization_config:
  module_name_configs:
    lay^er1\..*: null
)");
  auto h = hover(config::read_config(a.code(), config::Format::Yaml), a.point(), &model);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("Matches 5 modules and 4 ops (3 registered by the quantizer)"),
            std::string::npos)
      << h->markdown;
  EXPECT_NE(h->markdown.find("| `conv2d_1` | conv2d | layer1.0.conv1 | models/resnet.py:12 |"),
            std::string::npos)
      << h->markdown;
  EXPECT_NE(h->markdown.find("Precedence"), std::string::npos);
  EXPECT_EQ(h->range, (config::Range{{2, 4}, {2, 14}}));
}

// Ops are scanned in graph order: an op whose stack changes at some depth must be
// judged by its own modules, not those of the op before.
TEST(Hover, OpsCountWhereverTheirSelectedModuleSitsInTheStack) {
  Model model{&model_index(), index::Compressor::None};
  Annotations a(R"(quantization_config:
  module_name_configs:
    'lay^er1\.1|conv1': null
)");
  auto h = hover(config::read_config(a.code(), config::Format::Yaml), a.point(), &model);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("Matches 2 modules and 3 ops"), std::string::npos) << h->markdown;
  EXPECT_NE(h->markdown.find("`conv2d_2`"), std::string::npos) << h->markdown;
  EXPECT_EQ(h->markdown.find("`conv2d_1`"), std::string::npos) << h->markdown;
}

TEST(Hover, ExactModuleNameShowsTypeChildrenAndFeeders) {
  Model model{&model_index(), index::Compressor::None};
  Annotations a("quantization_config:\n  module_name_configs:\n    layer1.^1: null\n");
  auto h = hover(config::read_config(a.code(), config::Format::Yaml), a.point(), &model);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("`layer1.1`**: `models.resnet.BasicBlock`"), std::string::npos)
      << h->markdown;
  EXPECT_NE(h->markdown.find("children: `layer1.1.conv1`"), std::string::npos);
  EXPECT_NE(h->markdown.find("fed by: `layer1.0.relu`"), std::string::npos) << h->markdown;
}

TEST(Hover, OpTypeInScopeAndNothingOffKeys) {
  Model model{&model_index(), index::Compressor::Quantizer};
  Annotations a(R"(quantization_config:
  module_type_configs:
    models.resnet.BasicBlock:
      op_type_config:
        conv^2d: null
)");
  auto doc = config::read_config(a.code(), config::Format::Yaml);
  auto h = hover(doc, a.point(), &model);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("in modules of type `models.resnet.BasicBlock`"), std::string::npos);
  EXPECT_NE(h->markdown.find("Matches 2 ops"), std::string::npos) << h->markdown;
  EXPECT_FALSE(hover(doc, {1, 3}, &model)); // a table key, not a pattern
  // The root key summarises coreai-opt's resolution (issue 10); without a model, nothing.
  auto root = hover(doc, {0, 3}, &model);
  ASSERT_TRUE(root);
  EXPECT_NE(root->markdown.find("annotated by the Quantizer"), std::string::npos);
  EXPECT_FALSE(hover(doc, {0, 3}, nullptr));
  auto without_model = hover(doc, a.point(), nullptr);
  ASSERT_TRUE(without_model);
  EXPECT_NE(without_model->markdown.find("No model loaded"), std::string::npos);
}

TEST(Definition, PatternGoesToTheSourceLinesOfItsOps) {
  Model model{&model_index(), index::Compressor::None};
  Annotations a(R"(quantization_config:
  global_config:
    op_name_config:
      conv2d_^.*: null
)");
  auto locations =
      definition(config::read_config(a.code(), config::Format::Yaml), a.point(), model);
  ASSERT_EQ(locations.size(), 1u) << "two convs on one line are one location";
  EXPECT_EQ(locations[0].file, "models/resnet.py");
  EXPECT_EQ(locations[0].line, 12);
}

TEST(Definition, SkipsPyTorchsOwnFramesForTheUsersLine) {
  // Real stack traces end inside torch/nn/modules/conv.py; the user wants their model line.
  index::Index with_torch_frames = model_index();
  for (auto& op : with_torch_frames.ops)
    if (op.name == "conv2d_1")
      op.source.push_back({"/venv/lib/python3.11/site-packages/torch/nn/modules/conv.py", 565,
                           "forward", "return self._conv_forward(input, self.weight, self.bias)"});
  with_torch_frames.rebuild_lookups();
  Model model{&with_torch_frames, index::Compressor::None};
  Annotations a(R"(quantization_config:
  global_config:
    op_name_config:
      conv2d_^1: null
)");
  auto locations =
      definition(config::read_config(a.code(), config::Format::Yaml), a.point(), model);
  ASSERT_EQ(locations.size(), 1u);
  EXPECT_EQ(locations[0].file, "models/resnet.py");
  EXPECT_EQ(locations[0].line, 12);
}

TEST(ProjectedSize, AGraphModeConfigShowsItsSizeInTheLensAndTheRootKeysHover) {
  // The weight fake-quants graph-mode prepare() inserts: conv1's and fc's weights (int8, one
  // float32 scale each); fc's bias stays in float32.
  index::Index with_weights = model_index();
  with_weights.parameters = {{"conv1.weight", {}, {8, 3, 3, 3}, "float32", false},
                             {"fc.weight", {}, {10, 8}, "float32", false},
                             {"fc.bias", {}, {10}, "float32", false}};
  for (auto& op : with_weights.ops)
    if (op.name == "linear") {
      op.inputs.push_back({"fc.weight", std::nullopt, true});
      op.inputs.push_back({"fc.bias", std::nullopt, true});
    }
  with_weights.rebuild_lookups();
  Model model{&with_weights, index::Compressor::Quantizer};
  auto doc = config::read_config("quantization_config:\n  global_config:\n    op_state_spec:\n"
                                 "      weight: {dtype: int8, granularity: {type: per_tensor}}\n",
                                 config::Format::Yaml);
  std::vector<CodeLens> lenses = code_lenses(doc, &model);
  ASSERT_EQ(lenses.size(), 1u);
  // (216 + 80) * 8 + 2 * 32 + 10 * 32 bits over 306 weights.
  EXPECT_EQ(lenses[0].title, "projected size: 32.00 -> 8.99 bits per weight, 1.22 KB -> 344 B");
  EXPECT_EQ(lenses[0].range, doc.root_range);
  std::optional<std::string> hover = root_size_text(doc, &model);
  ASSERT_TRUE(hover.has_value());
  EXPECT_NE(hover->find("graph-mode prepare() inserts"), std::string::npos) << *hover;
  EXPECT_NE(hover->find("2 of 3 tensors compressed"), std::string::npos) << *hover;
}

TEST(ProjectedSize, NoLensWhereTheSizeCannotBeComputedAndTheRootKeysHoverSaysWhy) {
  // An index without parameters cannot be sized: no "not computed" line above the config.
  Model model{&model_index(), index::Compressor::Quantizer};
  auto doc =
      config::read_config("quantization_config:\n  global_config: {}\n", config::Format::Yaml);
  EXPECT_TRUE(code_lenses(doc, &model).empty());
  std::optional<std::string> why = root_size_text(doc, &model);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("lists no parameters"), std::string::npos) << *why;
}
