// Module aliases and tied tensors in the resolution, on a hand-built index shaped like
// python/fixtures/small.py's aliased_module: root > encoder (Sequential) > encoder.0 (Linear,
// op `linear`); `shortcut` is encoder.0 under a second name (op `linear_1`, the call through
// it); head (Linear, op `linear_2`). The judge on the real model is
// tests/fidelity/test_resolve_fidelity.py (coreai-opt's prepare()).
#include "deciding_keys.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/hover.h"
#include "opscope/resolve/resolve.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace opscope::resolve {
namespace {

using index::Index;

const std::string kLinear = "torch.nn.modules.linear.Linear";

// `tie_head`: head reads encoder.0's weight too (a tied tensor read by two entries' ops).
Index aliased_model(bool with_objects, bool tie_head = false) {
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
  auto op = [&](std::string name, int owner, std::string weight) {
    index::Op o;
    o.name = std::move(name);
    o.type = "linear";
    o.compressors = static_cast<std::uint8_t>(index::Compressor::Quantizer);
    o.module_stack = {{"", "m.Net"}};
    if (owner != 0)
      o.module_stack.push_back({index.modules[static_cast<std::size_t>(owner)].name,
                                index.modules[static_cast<std::size_t>(owner)].type});
    o.inputs = {{"x", 0, false}, {std::move(weight), std::nullopt, true}};
    index.ops.push_back(o);
    index.modules[static_cast<std::size_t>(owner)].ops.push_back(
        static_cast<int>(index.ops.size()) - 1);
  };
  int root = module("", "m.Net", -1);
  int encoder = module("encoder", "torch.nn.modules.container.Sequential", root);
  op("linear", module("encoder.0", kLinear, encoder), "encoder.0.weight");
  op("linear_1", module("shortcut", kLinear, root), "encoder.0.weight");
  op("linear_2", module("head", kLinear, root), tie_head ? "encoder.0.weight" : "head.weight");
  index.parameters = {{"encoder.0.weight", {"shortcut.weight"}, {8, 8}, "float32", false}};
  if (tie_head)
    index.parameters[0].aliases.push_back("head.weight");
  else
    index.parameters.push_back({"head.weight", {}, {4, 8}, "float32", false});
  if (with_objects)
    index.module_objects = {{"", "m.Net", {}, {1, 2, 3}},
                            {"encoder", "torch.nn.modules.container.Sequential", {}, {2}},
                            {"encoder.0", kLinear, {"shortcut"}, {}},
                            {"head", kLinear, {}, {}}};
  index.rebuild_lookups();
  return index;
}

using testing::deciding_keys;

TEST(ResolveAliases, TheIndexKnowsEachCallsCanonicalName) {
  Index index = aliased_model(true);
  const int shortcut = static_cast<int>(index.find_module("shortcut") - index.modules.data());
  EXPECT_EQ(index.canonical_name(static_cast<std::size_t>(shortcut)), "encoder.0");
  EXPECT_EQ(index.find_module_object("shortcut"), 2);
  EXPECT_EQ(index.canonical_name(1), "encoder");
}

TEST(ResolveAliases, AParentKeyOfTheCanonicalNameGovernsTheCallThroughTheAlias) {
  auto r = deciding_keys(aliased_model(true), "quantization_config:\n  module_name_configs:\n"
                                              "    shortcut: {}\n    encoder: {}\n");
  // encoder (later, applied first) claims encoder.0 before the `shortcut` key reaches it.
  EXPECT_EQ(r["linear"], "encoder");
  EXPECT_EQ(r["linear_1"], "encoder");
}

TEST(ResolveAliases, AKeyMatchingOnlyTheAliasNameGovernsEveryCall) {
  auto r = deciding_keys(aliased_model(true), "quantization_config:\n  module_type_configs:\n"
                                              "    torch.nn.modules.linear.Linear: {}\n"
                                              "  module_name_configs:\n    'short\\w+': {}\n");
  EXPECT_EQ(r["linear"], "short\\w+");
  EXPECT_EQ(r["linear_1"], "short\\w+");
  EXPECT_EQ(r["linear_2"], "torch.nn.modules.linear.Linear");
}

TEST(ResolveAliases, ATypeKeyClaimsTheObjectOnceForBothCalls) {
  auto r = deciding_keys(aliased_model(true), "quantization_config:\n  module_type_configs:\n"
                                              "    torch.nn.modules.linear.Linear: {}\n"
                                              "    torch.nn.modules.container.Sequential: {}\n");
  EXPECT_EQ(r["linear"], "torch.nn.modules.container.Sequential");
  EXPECT_EQ(r["linear_1"], "torch.nn.modules.container.Sequential");
  EXPECT_EQ(r["linear_2"], "torch.nn.modules.linear.Linear");
}

TEST(ResolveAliases, WithoutTheObjectTableEachCallGoesByItsOwnName) {
  // An index exported before aliases were recorded: the old answer, not a crash.
  auto r = deciding_keys(aliased_model(false), "quantization_config:\n  module_name_configs:\n"
                                               "    shortcut: {}\n    encoder: {}\n");
  EXPECT_EQ(r["linear"], "encoder");
  EXPECT_EQ(r["linear_1"], "shortcut");
}

TEST(ResolveTiedTensors, TheReaderAnnotatedFirstDecidesTheSharedTensor) {
  Index index = aliased_model(true, /*tie_head=*/true);
  Resolution r;
  // head is the later name key: claimed first, so its op is annotated first.
  deciding_keys(
      index, "quantization_config:\n  module_name_configs:\n    encoder: {}\n    head: {}\n", &r);
  ASSERT_EQ(r.shared.size(), 1u);
  EXPECT_EQ(r.shared[0].readers.size(), 3u);
  const OpDecision& first = r.ops[static_cast<std::size_t>(r.shared[0].decided_by)];
  EXPECT_EQ(index.ops[static_cast<std::size_t>(first.op)].name, "linear_2");

  deciding_keys(
      index, "quantization_config:\n  module_name_configs:\n    head: {}\n    encoder: {}\n", &r);
  ASSERT_EQ(r.shared.size(), 1u);
  const OpDecision& now = r.ops[static_cast<std::size_t>(r.shared[0].decided_by)];
  EXPECT_EQ(index.ops[static_cast<std::size_t>(now.op)].name, "linear");
}

TEST(ResolveTiedTensors, AModuleCalledTwiceSharesItsWeightAWeightReadOnceIsNotShared) {
  Resolution r;
  deciding_keys(aliased_model(false),
                "quantization_config:\n  module_name_configs:\n    head: {}\n", &r);
  ASSERT_EQ(r.shared.size(), 1u); // encoder.0's weight: read by linear and linear_1
  EXPECT_EQ(r.shared[0].parameter, 0);
}

// The same model as eager mode indexes it: coreai-opt's hooks name every call by the
// object's canonical name, so no module is called `shortcut` (its second call records no
// ops). Every op registered by every compressor.
Index eager_aliased_model() {
  Index index;
  index.mode = index::Mode::Eager;
  auto module = [&](std::string name, std::string type, int parent) {
    index.modules.push_back({});
    index::Module& m = index.modules.back();
    m.name = std::move(name);
    m.type = std::move(type);
    m.parent = parent;
    int id = static_cast<int>(index.modules.size()) - 1;
    if (parent >= 0)
      index.modules[static_cast<std::size_t>(parent)].children.push_back(id);
    return id;
  };
  auto op = [&](std::string name, int owner) {
    index::Op o;
    o.name = std::move(name);
    o.type = "linear";
    o.compressors = 0xff;
    o.module_stack = {{"", "m.Net"}};
    for (int m : {static_cast<int>(index.modules[static_cast<std::size_t>(owner)].parent), owner})
      if (m > 0)
        o.module_stack.push_back({index.modules[static_cast<std::size_t>(m)].name,
                                  index.modules[static_cast<std::size_t>(m)].type});
    index.ops.push_back(o);
    index.modules[static_cast<std::size_t>(owner)].ops.push_back(
        static_cast<int>(index.ops.size()) - 1);
  };
  int root = module("", "m.Net", -1);
  int encoder = module("encoder", "torch.nn.modules.container.Sequential", root);
  op("encoder.0.linear", module("encoder.0", kLinear, encoder));
  op("head.linear", module("head", kLinear, root));
  index.module_objects = {{"", "m.Net", {}, {1, 2, 3}},
                          {"encoder", "torch.nn.modules.container.Sequential", {}, {2}},
                          {"encoder.0", kLinear, {"shortcut"}, {}},
                          {"head", kLinear, {}, {}}};
  index.rebuild_lookups();
  return index;
}

TEST(ResolveAliases, AKeyOnlyAnAliasNameMatchesIsNotNoMatchAndHoverCountsItsCalls) {
  // coreai-opt applies `shortcut` to the object (build_module_config_dict tests every name),
  // though no module of the eager index carries that name. The palettizer has no
  // resolution in the editor: the check goes by what the key matches.
  const Index index = eager_aliased_model();
  const std::string yaml = "kmeans_palettization_config:\n  module_name_configs:\n"
                           "    shortcut: {op_state_spec: {weight: {n_bits: 2}}}\n"
                           "    'short\\w*z': {op_state_spec: {weight: {n_bits: 3}}}\n";
  config::ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
  features::Model model{&index, index::Compressor::KMeansPalettizer};
  std::vector<int> no_match_lines;
  for (const features::Diagnostic& d : features::diagnose(doc, &model))
    if (d.code == "no-match")
      no_match_lines.push_back(d.range.start.line);
  EXPECT_EQ(no_match_lines, std::vector<int>{3}); // only the key no name matches
  auto h = features::hover(doc, doc.keys[0].range.start, &model);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("Matches 1 module and 1 op"), std::string::npos) << h->markdown;
  EXPECT_NE(h->markdown.find("`encoder.0.linear`"), std::string::npos) << h->markdown;
}

} // namespace
} // namespace opscope::resolve
