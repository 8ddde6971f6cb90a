// Keys naming a container that forward() never calls (a ModuleList: `model.layers`), on a
// hand-built index shaped like a two-block Llama: root > model > model.layers.{0,1} (each one
// Linear, `mlp`, op `linear` / `linear_1`); lm_head (op `linear_2`). The graph records no call
// of `model.layers`, so the tree goes from `model` straight to its blocks; coreai-opt's
// build_module_config_dict walks named_modules() and a key naming the container configures
// every block. The judge on real models is tests/fidelity/test_container_keys.py.
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
const std::string kModuleList = "torch.nn.modules.container.ModuleList";

// `with_objects`: the archive's named_modules() table (the export helper writes it); without
// it the index infers the containers from the names.
Index llama_shaped(bool with_objects) {
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
  auto op = [&](std::string name, int owner) {
    index::Op o;
    o.name = std::move(name);
    o.type = "linear";
    o.compressors = static_cast<std::uint8_t>(index::Compressor::Quantizer);
    for (int m = owner; m >= 0; m = index.modules[static_cast<std::size_t>(m)].parent)
      o.module_stack.insert(o.module_stack.begin(),
                            {index.modules[static_cast<std::size_t>(m)].name,
                             index.modules[static_cast<std::size_t>(m)].type});
    std::string weight = index.modules[static_cast<std::size_t>(owner)].name + ".weight";
    o.inputs = {{"x", 0, false}, {weight, std::nullopt, true}};
    index.parameters.push_back({weight, {}, {8, 8}, "float32", false});
    index.ops.push_back(o);
    index.modules[static_cast<std::size_t>(owner)].ops.push_back(
        static_cast<int>(index.ops.size()) - 1);
  };
  int root = module("", "m.LlamaForCausalLM", -1);
  int model = module("model", "m.LlamaModel", root);
  int block0 = module("model.layers.0", "m.Block", model);
  op("linear", module("model.layers.0.mlp", kLinear, block0));
  int block1 = module("model.layers.1", "m.Block", model);
  op("linear_1", module("model.layers.1.mlp", kLinear, block1));
  op("linear_2", module("lm_head", kLinear, root));
  if (with_objects)
    index.module_objects = {
        {"", "m.LlamaForCausalLM", {}, {1, 7}},    {"model", "m.LlamaModel", {}, {2}},
        {"model.layers", kModuleList, {}, {3, 5}}, {"model.layers.0", "m.Block", {}, {4}},
        {"model.layers.0.mlp", kLinear, {}, {}},   {"model.layers.1", "m.Block", {}, {6}},
        {"model.layers.1.mlp", kLinear, {}, {}},   {"lm_head", kLinear, {}, {}}};
  index.rebuild_lookups();
  return index;
}

using testing::deciding_keys;

const std::string kContainerOverType = "quantization_config:\n  module_type_configs:\n"
                                       "    torch.nn.modules.linear.Linear: {}\n"
                                       "  module_name_configs:\n"
                                       "    'model\\.layers': {}\n";

TEST(ResolveContainers, AKeyNamingTheContainerConfiguresEveryBlock) {
  for (bool with_objects : {true, false}) {
    auto r = deciding_keys(llama_shaped(with_objects), kContainerOverType);
    EXPECT_EQ(r["linear"], "model\\.layers") << with_objects;
    EXPECT_EQ(r["linear_1"], "model\\.layers") << with_objects;
    EXPECT_EQ(r["linear_2"], "torch.nn.modules.linear.Linear") << with_objects;
  }
}

TEST(ResolveContainers, ALaterBlockKeyStillWinsItsBlock) {
  auto r = deciding_keys(llama_shaped(false), "quantization_config:\n  module_name_configs:\n"
                                              "    'model\\.layers': {}\n"
                                              "    'model\\.layers\\.1': {}\n");
  EXPECT_EQ(r["linear"], "model\\.layers");
  EXPECT_EQ(r["linear_1"], "model\\.layers\\.1");
  EXPECT_EQ(r["linear_2"], "");
}

TEST(ResolveContainers, ATypeKeyOnModuleListClaimsTheBlocksWhereTheArchiveRecordsTypes) {
  auto r = deciding_keys(llama_shaped(true), "quantization_config:\n  module_type_configs:\n"
                                             "    torch.nn.modules.linear.Linear: {}\n"
                                             "    torch.nn.modules.container.ModuleList: {}\n");
  EXPECT_EQ(r["linear"], "torch.nn.modules.container.ModuleList");
  EXPECT_EQ(r["linear_2"], "torch.nn.modules.linear.Linear");
}

TEST(ResolveContainers, TheInferredTableHoldsEveryPrefixOfAModulePath) {
  Index index = llama_shaped(false);
  ASSERT_GE(index.find_module_object("model.layers"), 0);
  const index::ModuleObject& layers =
      index.named_modules()[static_cast<std::size_t>(index.find_module_object("model.layers"))];
  EXPECT_EQ(layers.children.size(), 2u);
  EXPECT_EQ(index.named_modules().front().name, "");
  for (std::size_t m = 0; m < index.modules.size(); ++m) // each call is its own object
    EXPECT_EQ(index.canonical_name(m), index.modules[m].name);
}

TEST(ResolveContainers, TheContainerKeyIsNoNoMatchAndItsHoverListsTheBlocksOps) {
  for (bool with_objects : {true, false}) {
    const Index index = llama_shaped(with_objects);
    config::ConfigDocument doc = config::read_config(kContainerOverType, config::Format::Yaml);
    features::Model model{&index, index::Compressor::Quantizer};
    for (const features::Diagnostic& d : features::diagnose(doc, &model))
      EXPECT_NE(d.code, "no-match") << d.message;
    const config::PatternKey* key = nullptr;
    for (const config::PatternKey& k : doc.keys)
      if (k.text == "model\\.layers")
        key = &k;
    ASSERT_TRUE(key);
    auto h = features::hover(doc, key->range.start, &model);
    ASSERT_TRUE(h);
    EXPECT_NE(h->markdown.find("`linear`"), std::string::npos) << h->markdown;
    EXPECT_NE(h->markdown.find("`linear_1`"), std::string::npos) << h->markdown;
    EXPECT_EQ(h->markdown.find("`linear_2`"), std::string::npos) << h->markdown;
  }
}

TEST(ResolveContainers, AMisspelledContainerKeySuggestsTheContainer) {
  const Index index = llama_shaped(false);
  config::ConfigDocument doc =
      config::read_config("quantization_config:\n  module_name_configs:\n    'model\\.layer': {}\n",
                          config::Format::Yaml);
  features::Model model{&index, index::Compressor::Quantizer};
  bool found = false;
  for (const features::Diagnostic& d : features::diagnose(doc, &model))
    if (d.code == "no-match") {
      found = true;
      EXPECT_NE(d.message.find("model\\.layers`"), std::string::npos) << d.message;
    }
  EXPECT_TRUE(found);
}

} // namespace
} // namespace opscope::resolve
