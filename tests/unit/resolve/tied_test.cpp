// A tensor read from several modules in eager mode (tied weights, GPT-2's wte / lm_head):
// coreai-opt's StateSpecResolver gives it the spec of its highest-priority reader, priority
// being the module's place in build_module_config_dict (name entries, then type entries,
// then global; within a level, the module claimed first: the LAST matching module of
// named_modules(), since _apply_configs walks it reversed), not the call order.
#include "opscope/coreai/config/values.h"
#include "opscope/features/hover.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/pruner.h"

#include <gtest/gtest.h>

namespace opscope::resolve {
namespace {

using config::ConfigDocument;
using json = nlohmann::ordered_json;

// root > emb (Embedding: embedding), mix (Linear: linear), head (Linear: linear_1);
// head.weight is emb.weight. Eager, every op registered by every compressor.
const index::Index& tied_model() {
  static const index::Index index = [] {
    index::Index i;
    i.mode = index::Mode::Eager;
    auto module = [&](std::string name, std::string type) {
      index::Module m;
      m.name = std::move(name);
      m.type = std::move(type);
      m.parent = i.modules.empty() ? -1 : 0;
      i.modules.push_back(m);
      int id = static_cast<int>(i.modules.size()) - 1;
      if (id > 0)
        i.modules[0].children.push_back(id);
      return id;
    };
    auto op = [&](std::string name, std::string type, int owner, std::string weight) {
      index::Op o;
      o.name = std::move(name);
      o.type = std::move(type);
      o.compressors = 0xff;
      o.module_stack = {{"", "m.Net"},
                        {i.modules[static_cast<std::size_t>(owner)].name,
                         i.modules[static_cast<std::size_t>(owner)].type}};
      o.inputs = {{"x", 0, false}, {std::move(weight), std::nullopt, true}};
      i.ops.push_back(o);
      i.modules[static_cast<std::size_t>(owner)].ops.push_back(static_cast<int>(i.ops.size()) - 1);
    };
    module("", "m.Net");
    int emb = module("emb", "torch.nn.modules.sparse.Embedding");
    int mix = module("mix", "torch.nn.modules.linear.Linear");
    int head = module("head", "torch.nn.modules.linear.Linear");
    op("emb.embedding", "embedding", emb, "emb.weight");
    op("mix.linear", "linear", mix, "mix.weight");
    op("head.linear", "linear", head, "emb.weight"); // edges use the first name
    index::Parameter tied{"emb.weight", {"head.weight"}, {50, 16}, "float32", false};
    index::Parameter own{"mix.weight", {}, {16, 16}, "float32", false};
    i.parameters = {tied, own};
    i.rebuild_lookups();
    return i;
  }();
  return index;
}

EagerWeights weights_of(const std::string& yaml) {
  ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
  EXPECT_TRUE(doc.problems.empty());
  EXPECT_TRUE(resolves_eager_weights(doc, tied_model()));
  return resolve_eager_weights(doc, *config::read_values(doc.text, doc.format), tied_model());
}

const WeightDecision& tied(const EagerWeights& w) {
  return w.parameters[0];
}

std::string dtype(const WeightDecision& w) {
  return w.spec.value("dtype", std::string("?"));
}

const std::string kHeader = "quantization_config:\n  execution_mode: eager\n";

TEST(TiedWeights, TheLaterNameKeyWinsTheTensorWhicheverModuleCallsItFirst) {
  // emb's embedding reads the tensor first; head's key, written later, is applied first and
  // so ranks first: its spec is the tensor's, for both readers.
  EagerWeights w = weights_of(kHeader + "  module_name_configs:\n"
                                        "    emb: {op_state_spec: {weight: {dtype: uint2}}}\n"
                                        "    head: {op_state_spec: {weight: {dtype: int4}}}\n");
  EXPECT_EQ(dtype(tied(w)), "int4");
  EXPECT_EQ(tied(w).op, 2); // head.linear
  ASSERT_EQ(tied(w).readers.size(), 2u);
  EXPECT_TRUE(tied(w).shared());
  EXPECT_FALSE(w.parameters[1].shared());

  EagerWeights reversed =
      weights_of(kHeader + "  module_name_configs:\n"
                           "    head: {op_state_spec: {weight: {dtype: int4}}}\n"
                           "    emb: {op_state_spec: {weight: {dtype: uint2}}}\n");
  EXPECT_EQ(dtype(tied(reversed)), "uint2");
  EXPECT_EQ(tied(reversed).op, 0); // emb.embedding: head's later visit ranks lower
}

TEST(TiedWeights, OneEntryMatchingBothReadersGivesTheLastModulesOpSpec) {
  // One key claims both modules, walking named_modules() reversed: head is claimed first, so
  // its linear's op_type_config spec wins over the embedding's.
  EagerWeights w =
      weights_of(kHeader + "  module_name_configs:\n"
                           "    'emb|head':\n"
                           "      op_type_config:\n"
                           "        embedding: {op_state_spec: {weight: {dtype: uint2}}}\n"
                           "        linear: {op_state_spec: {weight: {dtype: int4}}}\n");
  EXPECT_EQ(dtype(tied(w)), "int4");
}

TEST(TiedWeights, UnderTheGlobalConfigTheLastModuleRanksFirstToo) {
  EagerWeights w =
      weights_of(kHeader + "  global_config:\n"
                           "    op_type_config:\n"
                           "      embedding: {op_state_spec: {weight: {dtype: uint2}}}\n"
                           "      linear: {op_state_spec: {weight: {dtype: int4}}}\n");
  EXPECT_EQ(dtype(tied(w)), "int4");
  EXPECT_EQ(tied(w).decider.kind, Decider::Kind::Key); // the `linear` op entry
}

TEST(TiedWeights, ANameEntryBeatsATypeEntryWrittenLater) {
  EagerWeights w =
      weights_of(kHeader + "  module_name_configs:\n"
                           "    emb: {op_state_spec: {weight: {dtype: uint2}}}\n"
                           "  module_type_configs:\n"
                           "    torch.nn.modules.linear.Linear: {op_state_spec: {weight: "
                           "{dtype: int4}}}\n");
  EXPECT_EQ(dtype(tied(w)), "uint2");
}

TEST(TiedWeights, AnOwnersModuleStateSpecBeatsEveryOpSpec) {
  // The palettizer: emb's module_state_spec reaches the tensor though its embedding call is
  // not a registered op, over head's op_state_spec and its higher priority.
  EagerWeights w = weights_of("kmeans_palettization_config:\n  module_name_configs:\n"
                              "    emb: {module_state_spec: {weight: {n_bits: 6}}}\n"
                              "    head: {op_state_spec: {weight: {n_bits: 2}}}\n");
  EXPECT_EQ(tied(w).spec.value("n_bits", 0), 6);
  EXPECT_EQ(tied(w).spec_table, "module_state_spec");
  EXPECT_EQ(tied(w).op, -1);
}

TEST(TiedWeights, ThePrunersResolutionCarriesNoGraphModeSharedTensors) {
  // The eager resolution starts from the graph one: its shared tensors named rows of ops it
  // then replaced, and a hover read them out of range.
  ConfigDocument doc =
      config::read_config("magnitude_pruning_config:\n  module_name_configs:\n"
                          "    emb: {op_state_spec: {weight: {target_sparsity: 0.2}}}\n"
                          "    head: {op_state_spec: {weight: {target_sparsity: 0.3}}}\n",
                          config::Format::Yaml);
  Resolution r = resolve_config(doc, tied_model());
  EXPECT_TRUE(r.shared.empty());
  for (const SharedTensor& s : r.shared)
    EXPECT_LT(static_cast<std::size_t>(s.decided_by), r.ops.size());
}

std::string hover_on(const std::string& yaml, const std::string& key, index::Compressor c) {
  ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
  for (const config::PatternKey& k : doc.keys)
    if (k.text == key) {
      features::Model model{&tied_model(), c};
      auto h = features::hover(doc, k.range.start, &model);
      return h ? h->markdown : std::string();
    }
  return "no key " + key;
}

TEST(TiedWeights, HoverOnTheLosingEntrySaysWhoseSpecTheTensorGets) {
  const std::string yaml = "kmeans_palettization_config:\n  module_name_configs:\n"
                           "    emb: {op_state_spec: {weight: {n_bits: 6}}}\n"
                           "    head: {op_state_spec: {weight: {n_bits: 2}}}\n";
  std::string losing = hover_on(yaml, "emb", index::Compressor::KMeansPalettizer);
  EXPECT_NE(losing.find("**Tied weight:** `emb.weight` = `head.weight` is one tensor"),
            std::string::npos)
      << losing;
  EXPECT_NE(losing.find("`head` (line 4)'s, through `head.linear`"), std::string::npos) << losing;
  EXPECT_NE(losing.find("does not apply to it"), std::string::npos) << losing;
  std::string winning = hover_on(yaml, "head", index::Compressor::KMeansPalettizer);
  EXPECT_NE(winning.find("this entry's, for every reader"), std::string::npos) << winning;
  // A key none of whose calls read the tensor says nothing of it.
  std::string other = hover_on(yaml + "    mix: {op_state_spec: {weight: {n_bits: 3}}}\n", "mix",
                               index::Compressor::KMeansPalettizer);
  EXPECT_EQ(other.find("Tied weight"), std::string::npos) << other;
}

} // namespace
} // namespace opscope::resolve
