// The summary must read exactly like coreai-opt's format_summary(); the expected texts
// below are what coreai-opt 0.4.0 prints for the same models.
#include "model_fixtures.h"
#include "opscope/format/summary.h"

#include <gtest/gtest.h>

using namespace opscope;
using opscope::format::SummaryOptions;

namespace {

const char* kMyModelQuantizerTree = R"((__main__.MyModel)
    module inputs:  {0: [linear[0]]}
    module outputs: {0: linear_1[0]}
├── ■ linear1 (torch.nn.modules.linear.Linear)
│       module inputs:  {0: [linear[0]]}
│       module outputs: {0: linear[0]}
│   └── ◆ linear [linear]
│         op inputs:  {0: x[0]}
│         op states:  weight, bias
│         op outputs: {0: [relu]}
│         filepath:  my_model.py:13
│         code:      x = self.linear1(x)
├── ■ relu (torch.nn.modules.activation.ReLU)
│       module inputs:  {0: [relu[0]]}
│       module outputs: {0: relu[0]}
└── ■ linear2 (torch.nn.modules.linear.Linear)
        module inputs:  {0: [linear_1[0]]}
        module outputs: {0: linear_1[0]}
    └── ◆ linear_1 [linear]
          op inputs:  {0: relu[0]}
          op states:  weight, bias
          op outputs: {0: [output]}
          filepath:  my_model.py:15
          code:      x = self.linear2(x))";

SummaryOptions quantizer_in_project() {
  SummaryOptions options;
  options.compressor = index::Compressor::Quantizer;
  options.cwd = "/home/user/proj";
  return options;
}

} // namespace

TEST(Summary, LegendIsCoreaiOptsLegend) {
  const std::string& legend = format::legend();
  EXPECT_EQ(legend.rfind("Legend:\n  ■ module_name (module_type)  ◆ op_name [op_type]\n\n", 0), 0u);
  EXPECT_NE(legend.find("  untracked_N                  —  input tensor whose producer was not "
                        "intercepted (e.g. raw attribute or global tensor); still quantizable via "
                        "op_input_spec\n"),
            std::string::npos);
  EXPECT_EQ(legend.back(), 'e'); // "... absent keys = non-quantizable", no newline
}

TEST(Summary, MyModelWithQuantizerMatchesCoreaiOpt) {
  std::string text = format::format_summary(fixtures::my_model_index(), quantizer_in_project());
  EXPECT_EQ(text, format::legend() + "\n\n" + kMyModelQuantizerTree);
}

TEST(Summary, MyModelWithoutSourceMatchesTheDocumentedTree) {
  // model-inspection.md's example (no source frames recorded).
  const char* expected = R"((__main__.MyModel)
    module inputs:  {0: [linear[0]]}
    module outputs: {0: linear_1[0]}
├── ■ linear1 (torch.nn.modules.linear.Linear)
│       module inputs:  {0: [linear[0]]}
│       module outputs: {0: linear[0]}
│   └── ◆ linear [linear]
│         op inputs:  {0: x[0]}
│         op states:  weight, bias
│         op outputs: {0: [relu]}
├── ■ relu (torch.nn.modules.activation.ReLU)
│       module inputs:  {0: [relu[0]]}
│       module outputs: {0: relu[0]}
└── ■ linear2 (torch.nn.modules.linear.Linear)
        module inputs:  {0: [linear_1[0]]}
        module outputs: {0: linear_1[0]}
    └── ◆ linear_1 [linear]
          op inputs:  {0: relu[0]}
          op states:  weight, bias
          op outputs: {0: [output]})";
  std::string text =
      format::format_summary(fixtures::my_model_index(false), quantizer_in_project());
  EXPECT_EQ(text, format::legend() + "\n\n" + expected);
}

TEST(Summary, WithoutCompressorEveryCallIsShown) {
  SummaryOptions options = quantizer_in_project();
  options.compressor = index::Compressor::None;
  std::string text = format::format_summary(fixtures::my_model_index(), options);
  EXPECT_NE(text.find(R"(├── ■ relu (torch.nn.modules.activation.ReLU)
│       module inputs:  {0: [relu[0]]}
│       module outputs: {0: relu[0]}
│   └── ◆ relu [relu]
│         op inputs:  {0: linear[0]}
│         op outputs: {0: [linear_1]}
│         filepath:  my_model.py:14
│         code:      x = self.relu(x)
└── ■ linear2)"),
            std::string::npos)
      << text;
}

TEST(Summary, RootOpsFollowSubmodulesAndTheLastChildClosesTheTree) {
  SummaryOptions options = quantizer_in_project();
  options.compressor = index::Compressor::None;
  std::string text = format::format_summary(fixtures::some_model_index(), options);
  EXPECT_NE(text.find(R"(├── ◆ avg_pool2d [avg_pool2d]
│     op inputs:  {0: cat[0]}
│     op outputs: {0: [view]}
│     filepath:  some_model.py:27
│     code:      out = F.avg_pool2d(out, 4)
└── ◆ view [view]
      op inputs:  {0: avg_pool2d[0]}
      op outputs: {0: [linear]}
      filepath:  some_model.py:28
      code:      out = out.view(out.size(0), -1))"),
            std::string::npos)
      << text;
  // cat's source is Concat.forward, the innermost frame.
  EXPECT_NE(text.find("│         filepath:  some_model.py:11\n│         code:      return "
                      "torch.cat(x, self.d)\n"),
            std::string::npos);
  EXPECT_NE(text.find("│         op states:  weight, bias, running_mean, running_var\n"),
            std::string::npos);
}

TEST(Summary, SourcePathIsRelativeToTheWorkingDirectory) {
  SummaryOptions options = quantizer_in_project();
  options.cwd = "/home/user/other";
  std::string text = format::format_summary(fixtures::my_model_index(), options);
  EXPECT_NE(text.find("filepath:  ../proj/my_model.py:13\n"), std::string::npos);
}

TEST(Summary, NothingCompressibleSaysSo) {
  index::Index index;
  index.modules.push_back({"", "m.Empty", -1, {}, {}, {}, {}});
  index.ops.push_back({"relu", "relu", index::OpKind::Call, {{"", "m.Empty"}}, {}, {}, {}, 0});
  index.modules[0].ops = {0};
  index.rebuild_lookups();
  SummaryOptions options;
  options.compressor = index::Compressor::Quantizer;
  EXPECT_EQ(format::format_summary(index, options), "(no compressible operations found)");
  options.compressor = index::Compressor::None;
  EXPECT_NE(format::format_summary(index, options).find("└── ◆ relu [relu]"), std::string::npos);
}

TEST(Summary, ColourUsesRichsStylesAroundEachStyledRun) {
  SummaryOptions options = quantizer_in_project();
  options.color = true;
  std::string text = format::format_summary(fixtures::my_model_index(), options);
  const char* expected_head = "(\x1b[35m__main__.MyModel\x1b[0m)\n"
                              "\x1b[2m    module inputs:  {0: [linear[0]]}\x1b[0m\n"
                              "\x1b[2m    module outputs: {0: linear_1[0]}\x1b[0m\n"
                              "├── ■ \x1b[32mlinear1\x1b[0m (\x1b[35mtorch.nn.modules.linear.Linear"
                              "\x1b[0m)\n"
                              "│   \x1b[2m    module inputs:  {0: [linear[0]]}\x1b[0m\n"
                              "│   \x1b[2m    module outputs: {0: linear[0]}\x1b[0m\n"
                              "│   └── ◆ \x1b[1;36mlinear\x1b[0m [\x1b[33mlinear\x1b[0m]\n"
                              "│         op inputs:  {0: x[0]}\n"
                              "│         op states:  weight, bias\n"
                              "│         op outputs: {0: [relu]}\n"
                              "│       \x1b[2m  filepath:  my_model.py:13\x1b[0m\n"
                              "│       \x1b[2m  code:      x = self.linear1(x)\x1b[0m\n";
  EXPECT_EQ(text.substr(0, format::legend().size() + 2), format::legend() + "\n\n");
  EXPECT_EQ(text.substr(format::legend().size() + 2, std::string(expected_head).size()),
            expected_head);
}

// rich wraps each label at the console width minus 4 cells per tree level, breaking
// between words, keeping the space before the break and folding words that never fit.
TEST(Summary, LongLabelsWrapLikeRich) {
  index::Index index;
  const std::string leaf = "features.0.block.layers.0";
  const std::string long_type =
      "very.long.package.name.modules.convolution.SuperLongConvolutionalModuleTypeName";
  const std::string op_name = "conv2d_with_a_really_long_name_number_one_two_three";
  index.modules = {{"", "__main__.M", -1, {1}, {}, {}, {}},
                   {"features.0", "pkg.Mid", 0, {2}, {}, {}, {}},
                   {leaf, long_type, 1, {}, {0}, {{0, {{op_name, 0}}}}, {{0, {op_name, 0}}}}};
  index.ops = {{op_name,
                "conv2d",
                index::OpKind::Call,
                {{"", "__main__.M"}, {"features.0", "pkg.Mid"}, {leaf, long_type}},
                {{"/tmp/bcli/m.py", 12, "forward",
                  "x = self.features_extraction_block_number_one(self.preprocess(x), scale=1.0, "
                  "bias=None, extra=[1,2,3])"}},
                {{"features.0.weight", std::nullopt, true}},
                {{0, {}}},
                0}};
  index.rebuild_lookups();
  SummaryOptions options;
  options.cwd = "/tmp/bcli";
  const std::string expected =
      "(__main__.M)\n"
      "└── ■ features.0 (pkg.Mid)\n"
      "    └── ■ features.0.block.layers.0 \n"
      "        (very.long.package.name.modules.convolution.SuperLongConvolutionalModule\n"
      "        TypeName)\n"
      "            module inputs:  {0: \n"
      "        [conv2d_with_a_really_long_name_number_one_two_three[0]]}\n"
      "            module outputs: {0: \n"
      "        conv2d_with_a_really_long_name_number_one_two_three[0]}\n"
      "        └── ◆ conv2d_with_a_really_long_name_number_one_two_three [conv2d]\n"
      "              op states:  weight\n"
      "              op outputs: {0: []}\n"
      "              filepath:  m.py:12\n"
      "              code:      x = \n"
      "            self.features_extraction_block_number_one(self.preprocess(x), \n"
      "            scale=1.0, bias=None, extra=[1,2,3])";
  EXPECT_EQ(format::format_summary(index, options), format::legend() + "\n\n" + expected);

  options.color = true;
  std::string colored = format::format_summary(index, options);
  EXPECT_NE(colored.find("    └── ■ \x1b[32mfeatures.0.block.layers.0\x1b[0m \n"
                         "        (\x1b[35mvery.long.package.name.modules.convolution."
                         "SuperLongConvolutionalModule\x1b[0m\n"
                         "        \x1b[35mTypeName\x1b[0m)\n"
                         "        \x1b[2m    module inputs:  {0: \x1b[0m\n"),
            std::string::npos)
      << colored;

  options.color = false;
  options.width = 200;
  EXPECT_NE(format::format_summary(index, options)
                .find("    └── ■ features.0.block.layers.0 (" + long_type + ")\n"),
            std::string::npos);
}

TEST(Summary, JsonCarriesTheSameTree) {
  auto json = format::summary_json(fixtures::my_model_index(), quantizer_in_project());
  EXPECT_EQ(json["model_type"], "__main__.MyModel");
  EXPECT_EQ(json["compressor"], "quantizer");
  EXPECT_EQ(json["empty"], false);
  const auto& model = json["model"];
  ASSERT_EQ(model["children"].size(), 3u);
  EXPECT_EQ(model["children"][1]["module_name"], "relu");
  EXPECT_TRUE(model["children"][1]["ops"].empty()); // filtered out by the quantizer
  EXPECT_EQ(model["children"][1]["inputs"][0]["ops"][0]["op"], "relu");
  const auto& linear = model["children"][0]["ops"][0];
  EXPECT_EQ(linear["op_name"], "linear");
  EXPECT_EQ(linear["states"], nlohmann::json({"weight", "bias"}));
  EXPECT_EQ(linear["outputs"][0]["consumers"], nlohmann::json({"relu"}));
  EXPECT_EQ(linear["source"]["file"], "my_model.py");
  EXPECT_EQ(linear["source"]["line"], 13);
  EXPECT_EQ(linear["module_stack"][1]["module_type"], "torch.nn.modules.linear.Linear");
}

// A name is shown as written, whatever bytes it holds: a stray continuation byte is one
// U+FFFD, never the start of a sequence that swallows the letters after it.
TEST(Summary, AStrayByteInANameIsOneReplacementCharacter) {
  index::Index index;
  index.modules = {{"", "__main__.M", -1, {1}, {}, {}, {}},
                   {"enc\x80oder", "pkg.Enc", 0, {}, {}, {}, {}}};
  index.rebuild_lookups();
  std::string text = format::format_summary(index, SummaryOptions{});
  EXPECT_NE(text.find("└── ■ enc\xEF\xBF\xBDoder (pkg.Enc)"), std::string::npos) << text;
}
