// MagnitudePruner's resolution (opscope/resolve/pruner.h) on the hand-built convnet, indexed
// eager with a weight per conv / linear.
#include "opscope/coreai/config/values.h"
#include "opscope/features/overridden.h"
#include "opscope/resolve/pruner.h"
#include "small_convnet.h"

#include <gtest/gtest.h>

namespace opscope::resolve {
namespace {

using config::ConfigDocument;
using json = nlohmann::ordered_json;

const index::Index& eager_model() {
  static const index::Index index = [] {
    index::Index i = testing::small_model();
    i.mode = index::Mode::Eager;
    for (std::size_t m = 0; m < i.modules.size(); ++m)
      for (int op : i.modules[m].ops) {
        index::Op& o = i.ops[static_cast<std::size_t>(op)];
        o.compressors |= static_cast<std::uint8_t>(index::Compressor::MagnitudePruner);
        index::Parameter p;
        p.name = i.modules[m].name + ".weight";
        p.shape = {4, 4, 3, 3};
        p.dtype = "float32";
        i.parameters.push_back(p);
        o.inputs.push_back({"x", 0, false});
        o.inputs.push_back({p.name, std::nullopt, true});
      }
    i.rebuild_lookups();
    return i;
  }();
  return index;
}

struct Resolved {
  ConfigDocument doc;
  Resolution resolution;
  EagerWeights weights;
};

Resolved resolve(const std::string& yaml) {
  Resolved r{config::read_config(yaml, config::Format::Yaml), {}, {}};
  EXPECT_TRUE(resolves(r.doc, eager_model()));
  r.resolution = resolve_config(r.doc, eager_model());
  r.weights =
      resolve_eager_weights(r.doc, *config::read_values(r.doc.text, r.doc.format), eager_model());
  return r;
}

const OpDecision& op(const Resolved& r, const std::string& name) {
  for (const OpDecision& d : r.resolution.ops)
    if (eager_model().ops[static_cast<std::size_t>(d.op)].name == name)
      return d;
  throw std::runtime_error("no decision for " + name);
}

json spec_of(const Resolved& r, const std::string& parameter) {
  for (const WeightDecision& w : r.weights.parameters)
    if (eager_model().parameters[static_cast<std::size_t>(w.parameter)].name == parameter)
      return filled_pruning_spec(w.spec);
  throw std::runtime_error("no parameter " + parameter);
}

std::string key_of(const Resolved& r, const Decider& d) {
  return d.kind == Decider::Kind::Key
             ? r.doc.keys[static_cast<std::size_t>(d.key)].text
             : std::string(d.kind == Decider::Kind::Global ? "(global)" : "(default)");
}

TEST(Pruner, WithoutGlobalConfigEveryConvAndLinearWeightGetsHalfSparsityUnstructured) {
  Resolved r = resolve("magnitude_pruning_config:\n  module_name_configs:\n    fc: null\n");
  EXPECT_EQ(r.resolution.compressor, index::Compressor::MagnitudePruner);
  ASSERT_EQ(r.resolution.ops.size(), 5u);
  EXPECT_EQ(op(r, "conv2d_1").decider.kind, Decider::Kind::DefaultGlobal);
  EXPECT_EQ(spec_of(r, "layer3.0.conv1.weight"),
            json::parse(R"({"target_sparsity": 0.5, "pruning_scheme": {"type": "unstructured"},
                            "pruning_algo": "default"})"));
  EXPECT_TRUE(op(r, "linear").full_precision);
  EXPECT_TRUE(spec_of(r, "fc.weight").is_null());
}

TEST(Pruner, ALaterParentNameKeyTakesTheChildFromAnEarlierKey) {
  Resolved r =
      resolve("magnitude_pruning_config:\n  module_name_configs:\n"
              "    'layer3\\.0\\.conv1': {op_state_spec: {weight: {target_sparsity: 0.1}}}\n"
              "    layer3: {op_state_spec: {weight: {target_sparsity: 0.2}}}\n");
  EXPECT_EQ(key_of(r, op(r, "conv2d_1").decider), "layer3");
  EXPECT_EQ(spec_of(r, "layer3.0.conv1.weight")["target_sparsity"], 0.2);
  auto d = features::overridden_diagnostics(r.doc, eager_model(), r.resolution);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, "overridden");
  EXPECT_EQ(d[0].range.start.line, 2);
  ASSERT_EQ(d[0].fixes.size(), 1u); // move it below `layer3`
}

TEST(Pruner, OpTypeConfigBeatsTheModuleSpecAndOpNameBeatsOpType) {
  Resolved r = resolve("magnitude_pruning_config:\n  global_config: {op_state_spec: {weight: "
                       "{target_sparsity: 0.1}}}\n"
                       "  module_type_configs:\n    m.BasicBlock:\n"
                       "      op_state_spec: {weight: {target_sparsity: 0.2}}\n"
                       "      op_type_config:\n        conv2d:\n"
                       "          op_state_spec: {weight: {target_sparsity: 0.3, pruning_scheme: "
                       "{type: channel_structured}}}\n"
                       "      op_name_config:\n        'conv2d_2': {op_state_spec: {weight: "
                       "{target_sparsity: 0.4}}}\n");
  EXPECT_EQ(key_of(r, op(r, "conv2d_1").decider), "conv2d");
  EXPECT_EQ(key_of(r, op(r, "conv2d_2").decider), "conv2d_2");
  EXPECT_EQ(key_of(r, op(r, "conv2d").decider), "(global)");
  EXPECT_EQ(spec_of(r, "layer3.0.conv1.weight")["pruning_scheme"],
            json::parse(R"({"type": "channel_structured", "axis": 0})"));
  EXPECT_EQ(spec_of(r, "layer3.0.conv2.weight")["target_sparsity"], 0.4);
  EXPECT_EQ(spec_of(r, "conv1.weight")["target_sparsity"], 0.1);
}

TEST(Pruner, AnOpStateSpecNamingNoWeightLeavesTheOpDense) {
  // The spec dict is matched by the parameter's local name: `in_proj_weight` only reaches
  // multi-head attention, so the convolutions under layer4 stay dense.
  Resolved r = resolve("magnitude_pruning_config:\n  module_name_configs:\n"
                       "    layer4: {op_state_spec: {in_proj_weight: {target_sparsity: 0.7}}}\n");
  EXPECT_EQ(key_of(r, op(r, "conv2d_3").decider), "layer4");
  EXPECT_TRUE(op(r, "conv2d_3").full_precision);
  EXPECT_TRUE(spec_of(r, "layer4.0.conv1.weight").is_null());
  EXPECT_FALSE(op(r, "conv2d_1").full_precision);
}

TEST(Pruner, APruningConfigOnAGraphIndexOrAGraphModeQuantizerConfigOnAnEagerIndexIsNotResolved) {
  index::Index graph = testing::small_model();
  ConfigDocument prune =
      config::read_config("magnitude_pruning_config: {}\n", config::Format::Yaml);
  ConfigDocument quant = config::read_config("quantization_config: {}\n", config::Format::Yaml);
  EXPECT_FALSE(resolves(prune, graph));
  EXPECT_FALSE(resolves(quant, eager_model()));
}

// nn.MultiheadAttention as eager mode records it: one call inside `attn` reading
// in_proj_weight, in_proj_bias and out_proj.weight (out_proj's own forward never runs).
index::Index attention_model() {
  index::Index i;
  i.mode = index::Mode::Eager;
  i.modules.resize(2);
  i.modules[0].type = "m.Net";
  i.modules[0].parent = -1;
  i.modules[0].children = {1};
  i.modules[1].name = "attn";
  i.modules[1].type = "torch.nn.modules.activation.MultiheadAttention";
  i.modules[1].parent = 0;
  i.modules[1].ops = {0};
  index::Op op;
  op.name = "attn.multi_head_attention_forward";
  op.type = "multi_head_attention";
  op.compressors = static_cast<std::uint8_t>(index::Compressor::MagnitudePruner);
  op.module_stack = {{"", "m.Net"}, {"attn", i.modules[1].type}};
  op.inputs = {{"x", 0, false},
               {"attn.in_proj_weight", std::nullopt, true},
               {"attn.in_proj_bias", std::nullopt, true},
               {"attn.out_proj.weight", std::nullopt, true}};
  i.ops = {op};
  i.parameters = {{"attn.in_proj_weight", {}, {48, 16}, "float32", false},
                  {"attn.in_proj_bias", {}, {48}, "float32", false},
                  {"attn.out_proj.weight", {}, {16, 16}, "float32", false}};
  i.rebuild_lookups();
  return i;
}

TEST(Pruner, AttentionPrunesInProjWeightAndOutProjWeightUnderTheAttentionModulesSpecs) {
  const index::Index index = attention_model();
  auto specs = [&](const std::string& yaml) {
    ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
    EXPECT_TRUE(resolves(doc, index));
    std::vector<json> out;
    for (const WeightDecision& w :
         resolve_eager_weights(doc, *config::read_values(doc.text, doc.format), index).parameters)
      out.push_back(w.spec.is_object() ? filled_pruning_spec(w.spec)["target_sparsity"] : json());
    return out;
  };
  // Defaults: {weight, in_proj_weight} at 0.5; the bias is named by neither.
  EXPECT_EQ(specs("magnitude_pruning_config: {}\n"), (std::vector<json>{0.5, json(), 0.5}));
  // out_proj.weight goes by its local name `weight`, in attn's spec dict; a key on
  // attn.out_proj changes nothing (that module is never called).
  EXPECT_EQ(specs("magnitude_pruning_config:\n  module_name_configs:\n"
                  "    'attn\\.out_proj': {op_state_spec: {weight: {target_sparsity: 0.8}}}\n"
                  "    attn: {op_state_spec: {in_proj_weight: {target_sparsity: 0.6}}}\n"),
            (std::vector<json>{0.6, json(), json()}));
  EXPECT_EQ(specs("magnitude_pruning_config:\n  global_config:\n    op_type_config:\n"
                  "      multi_head_attention: {op_state_spec: {in_proj_weight: "
                  "{target_sparsity: 0.4}, weight: {target_sparsity: 0.45}}}\n"),
            (std::vector<json>{0.4, json(), 0.45}));
}

} // namespace
} // namespace opscope::resolve
