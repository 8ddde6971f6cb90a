// Pattern groups (coreai-opt's annotation patterns): the ops after a registered op that its
// pattern covers are configured with it, and diagnose() reports the resolution.
#include "opscope/features/diagnostics.h"
#include "opscope/features/hover.h"
#include "opscope/resolve/resolve.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace opscope::resolve {
namespace {

// root > conv1 (conv2d), bn1 (batch_norm), relu (relu, called twice), block (add); fc (linear)
// conv2d -> batch_norm -> relu_ -> add <- x ; add -> relu__1 -> linear -> output
index::Index patterned_model() {
  index::Index index;
  auto module = [&](std::string name, std::string type) {
    index::Module m;
    m.name = std::move(name);
    m.type = std::move(type);
    m.parent = index.modules.empty() ? -1 : 0;
    index.modules.push_back(m);
    int id = static_cast<int>(index.modules.size()) - 1;
    if (id > 0)
      index.modules[0].children.push_back(id);
    return id;
  };
  auto op = [&](std::string name, std::string type, int owner, std::vector<std::string> users,
                bool registered) {
    index::Op o;
    o.name = std::move(name);
    o.type = std::move(type);
    o.compressors = registered ? static_cast<std::uint8_t>(index::Compressor::Quantizer) : 0;
    o.module_stack.push_back({"", "m.Net"});
    if (owner > 0)
      o.module_stack.push_back({index.modules[static_cast<std::size_t>(owner)].name,
                                index.modules[static_cast<std::size_t>(owner)].type});
    o.outputs.push_back({0, std::move(users)});
    index.ops.push_back(o);
    index.modules[static_cast<std::size_t>(owner)].ops.push_back(
        static_cast<int>(index.ops.size()) - 1);
  };
  int root = module("", "m.Net");
  int conv = module("conv1", "torch.nn.modules.conv.Conv2d");
  int bn = module("bn1", "torch.nn.modules.batchnorm.BatchNorm2d");
  int relu = module("relu", "torch.nn.modules.activation.ReLU");
  int fc = module("fc", "torch.nn.modules.linear.Linear");
  int proj = module("proj", "transformers.pytorch_utils.Conv1D");
  op("conv2d", "conv2d", conv, {"batch_norm"}, true);
  op("batch_norm", "batch_norm", bn, {"relu_"}, false);
  op("relu_", "relu", relu, {"add"}, false);
  op("add", "add", root, {"relu__1"}, true);
  op("relu__1", "relu", relu, {"linear"}, false);
  op("linear", "linear", fc, {"addmm"}, true);
  op("addmm", "addmm", proj, {"output"}, false);
  index.rebuild_lookups();
  return index;
}

const index::Index& model() {
  static const index::Index index = patterned_model();
  return index;
}

// op -> (deciding entry's last path element, the pattern's first op)
std::map<std::string, std::pair<std::string, std::string>> explain(const std::string& yaml) {
  config::ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
  Resolution r = resolve_quantizer(doc, model());
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const OpDecision& d : r.ops) {
    std::vector<std::string> path = decider_path(doc, d.decider);
    out[model().ops[static_cast<std::size_t>(d.op)].name] = {
        path.empty() ? "" : path.back(), model().ops[static_cast<std::size_t>(d.primary)].name};
  }
  return out;
}

TEST(Patterns, EveryOpOfAPatternIsListedWithItsFirstOp) {
  auto r = explain("quantization_config:\n  global_config: {}\n");
  ASSERT_EQ(r.size(), 6u); // conv-bn-relu, add-relu, linear
  EXPECT_EQ(r["batch_norm"].second, "conv2d");
  EXPECT_EQ(r["relu_"].second, "conv2d");
  EXPECT_EQ(r["relu__1"].second, "add");
  EXPECT_EQ(r["linear"].second, "linear");
}

TEST(Patterns, AKeyOnAPatternMemberDecidesNothingTheFirstOpsKeyDoes) {
  auto r = explain("quantization_config:\n  module_name_configs:\n"
                   "    conv1: {}\n    relu: {}\n    bn1: {}\n");
  EXPECT_EQ(r["batch_norm"].first, "conv1");
  EXPECT_EQ(r["relu_"].first, "conv1");
  EXPECT_EQ(r["relu__1"].first, ""); // the add's: coreai-opt's default global config
}

TEST(Patterns, OpTablesSeeTheFirstOpNotTheMember) {
  auto r = explain("quantization_config:\n  global_config:\n    op_type_config:\n"
                   "      relu: {}\n      conv2d: {}\n");
  EXPECT_EQ(r["relu_"].first, "conv2d");
  EXPECT_EQ(r["relu__1"].first, "global_config");
}

TEST(Patterns, DiagnoseReportsAPatternMembersKeyAsOverridden) {
  config::ConfigDocument doc = config::read_config(
      "quantization_config:\n  module_name_configs:\n    relu: {}\n    conv1: {}\n",
      config::Format::Yaml);
  features::Model m{&model(), index::Compressor::Quantizer, nullptr, nullptr};
  std::vector<features::Diagnostic> d = features::diagnose(doc, &m);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, "overridden");
  EXPECT_EQ(d[0].range.start.line, 2);
  EXPECT_NE(d[0].message.find("`conv1` (line 4)"), std::string::npos) << d[0].message;
  // Another compressor's config is resolved otherwise: nothing said.
  m.compressor = index::Compressor::KMeansPalettizer;
  EXPECT_TRUE(features::diagnose(doc, &m).empty());
}

TEST(Patterns, AnEntryWhoseModulesHoldNothingTheQuantizerCompressesHasNoEffect) {
  config::ConfigDocument doc = config::read_config(
      "quantization_config:\n  module_type_configs:\n    transformers.pytorch_utils.Conv1D: {}\n",
      config::Format::Yaml);
  features::Model m{&model(), index::Compressor::Quantizer, nullptr, nullptr};
  std::vector<features::Diagnostic> d = features::diagnose(doc, &m);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, "no-effect");
  EXPECT_EQ(d[0].severity, features::Severity::Warning);
  EXPECT_NE(d[0].message.find("matches 1 module but none of their 1 op is one the Quantizer "
                              "compresses: they compute with `addmm`"),
            std::string::npos)
      << d[0].message;
}

TEST(Patterns, HoverSaysHowManyOpsTheKeyDecidesAndWhoTakesTheRest) {
  config::ConfigDocument doc = config::read_config(
      "quantization_config:\n  module_name_configs:\n    relu: {}\n    conv1: {}\n",
      config::Format::Yaml);
  features::Model m{&model(), index::Compressor::Quantizer, nullptr, nullptr};
  auto h = features::hover(doc, {2, 5}, &m);
  ASSERT_TRUE(h);
  // relu_ goes with the conv (conv1's key), relu__1 with the add (the default global config).
  EXPECT_NE(h->markdown.find("decides 0 of the 2 ops the Quantizer annotates here; the others "
                             "go to:\n\n- `conv1` (line 4): 1 op\n- coreai-opt's default "
                             "global_config: 1 op"),
            std::string::npos)
      << h->markdown;
  h = features::hover(doc, {3, 5}, &m);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("decides 1 of the 1 op the Quantizer annotates here, and 2 more "
                             "outside them that follow its ops in a pattern"),
            std::string::npos)
      << h->markdown;
}

TEST(Patterns, HoverOnTheRootKeySummarisesTheConfig) {
  config::ConfigDocument doc = config::read_config(
      "quantization_config:\n  module_name_configs:\n    conv1: {}\n    fc: null\n",
      config::Format::Yaml);
  features::Model m{&model(), index::Compressor::Quantizer, nullptr, nullptr};
  auto h = features::hover(doc, {0, 3}, &m);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("**6 ops annotated by the Quantizer** (coreai-opt's resolution, "
                             "graph mode): 5 compressed, 1 left in full precision."),
            std::string::npos)
      << h->markdown;
  EXPECT_NE(h->markdown.find("| `conv1` | 3 | 3 |"), std::string::npos) << h->markdown;
  EXPECT_NE(h->markdown.find("| `fc` | 4 | 1 (full precision) |"), std::string::npos)
      << h->markdown;
}

} // namespace
} // namespace opscope::resolve
