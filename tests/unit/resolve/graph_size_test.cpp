// The projected size of a graph-mode Quantizer config (issue 24): the weight fake-quants
// prepare() would insert, each sized as bits_per_weight() sizes a quantized weight, every other
// tensor at full precision, a tied tensor once. tests/fidelity/test_graph_size_fidelity.py holds
// the same rules to coreai-opt's own prepare(); these pin each rule on a hand-built graph.
#include "opscope/coreai/config/values.h"
#include "opscope/resolve/graph_weights.h"
#include "opscope/resolve/size.h"

#include <gtest/gtest.h>

namespace opscope::resolve {
namespace {

// root > conv (Conv2d: conv2d -> bn's batch_norm -> relu), emb (Embedding: embedding),
// head (Linear: linear reading emb.weight, also named head.weight), norm (an RMSNorm: mul).
const index::Index& graph_model() {
  static const index::Index index = [] {
    index::Index i;
    i.mode = index::Mode::Graph;
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
    auto op = [&](std::string name, std::string type, int owner, std::string input,
                  std::vector<std::string> states, std::string user) {
      index::Op o;
      o.name = std::move(name);
      o.type = std::move(type);
      o.compressors =
          o.type == "batch_norm" ? 0 : static_cast<std::uint8_t>(index::Compressor::Quantizer);
      o.module_stack = {{"", "m.Net"},
                        {i.modules[static_cast<std::size_t>(owner)].name,
                         i.modules[static_cast<std::size_t>(owner)].type}};
      o.inputs = {{std::move(input), 0, false}};
      for (std::string& s : states)
        o.inputs.push_back({std::move(s), std::nullopt, true});
      o.outputs = {{0, {std::move(user)}}};
      i.ops.push_back(o);
      i.modules[static_cast<std::size_t>(owner)].ops.push_back(static_cast<int>(i.ops.size()) - 1);
    };
    module("", "m.Net");
    int conv = module("conv", "torch.nn.modules.conv.Conv2d");
    int bn = module("bn", "torch.nn.modules.batchnorm.BatchNorm2d");
    int relu = module("relu", "torch.nn.modules.activation.ReLU");
    int emb = module("emb", "torch.nn.modules.sparse.Embedding");
    int head = module("head", "torch.nn.modules.linear.Linear");
    int norm = module("norm", "m.RMSNorm");
    op("conv2d", "conv2d", conv, "x", {"conv.weight", "conv.bias"}, "batch_norm");
    op("batch_norm", "batch_norm", bn, "conv2d",
       {"bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}, "relu");
    op("relu", "relu", relu, "batch_norm", {}, "output");
    op("embedding", "embedding", emb, "ids", {"emb.weight"}, "mul");
    op("mul", "mul", norm, "embedding", {"norm.weight"}, "linear");
    op("linear", "linear", head, "mul", {"emb.weight"}, "output"); // edges use the first name
    auto tensor = [](std::string name, std::vector<std::int64_t> shape, bool buffer = false,
                     std::string dtype = "float32") {
      return index::Parameter{std::move(name), {}, std::move(shape), std::move(dtype), buffer};
    };
    i.parameters = {tensor("conv.weight", {4, 2, 3, 3}),
                    tensor("conv.bias", {4}),
                    tensor("bn.weight", {4}),
                    tensor("bn.bias", {4}),
                    tensor("emb.weight", {10, 4}),
                    tensor("norm.weight", {4}),
                    tensor("bn.running_mean", {4}, true),
                    tensor("bn.running_var", {4}, true),
                    tensor("bn.num_batches_tracked", {}, true, "int64")};
    i.parameters[4].aliases = {"head.weight"};
    i.rebuild_lookups();
    return i;
  }();
  return index;
}

// Full-precision bits of every tensor of graph_model(): 84 float32 weights and a scalar int64.
constexpr std::int64_t kFloatWeights = 72 + 4 + 4 + 4 + 40 + 4 + 4 + 4;
constexpr std::int64_t kBitsBefore = kFloatWeights * 32 + 64;

ProjectedSize size_of(const std::string& yaml) {
  config::ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
  EXPECT_TRUE(doc.problems.empty());
  return projected_size(doc, graph_model());
}

const ParameterSize& parameter(const ProjectedSize& size, const std::string& name) {
  for (const ParameterSize& p : size.parameters)
    if (graph_model().parameters[static_cast<std::size_t>(p.parameter)].name == name)
      return p;
  ADD_FAILURE() << "no parameter " << name;
  return size.parameters.front();
}

// A module config quantizing weights only, to `dtype`, per tensor unless `granularity` says.
std::string weights(const std::string& dtype, const std::string& granularity = "per_tensor") {
  return "{op_input_spec: null, op_output_spec: null, op_state_spec: {weight: {dtype: " + dtype +
         ", granularity: {type: " + granularity + "}}}}";
}

TEST(GraphSize, EachWeightAFakeQuantFeedsIsSizedAtItsSpecAndEverythingElseInFull) {
  ProjectedSize size = size_of("quantization_config:\n  global_config: " + weights("int4") + "\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_TRUE(size.graph_mode);
  EXPECT_EQ(size.total_weights, kFloatWeights + 1);
  EXPECT_EQ(size.bits_before, kBitsBefore);
  // conv.weight, emb.weight (tied: once) and norm.weight: numel * 4 + one float32 scale each.
  EXPECT_EQ(size.bits_after, kBitsBefore - (72 + 40 + 4) * 32 + (72 + 40 + 4) * 4 + 3 * 32);
  EXPECT_FALSE(parameter(size, "conv.bias").compressed);       // no key names a bias
  EXPECT_FALSE(parameter(size, "bn.weight").compressed);       // the bn only joins conv's match
  EXPECT_FALSE(parameter(size, "bn.running_mean").compressed); // a buffer the bn reads
  EXPECT_EQ(size.parameters.size(), graph_model().parameters.size());
}

TEST(GraphSize, PerChannelTakesItsAxisFromTheOpReadingTheWeight) {
  // conv2d and embedding default the per-channel axis to 0: one scale per output row.
  ProjectedSize size =
      size_of("quantization_config:\n  global_config: " + weights("int8", "per_channel") +
              "\n  module_name_configs:\n    norm: " + weights("int8") + "\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_EQ(parameter(size, "conv.weight").bits_after, 72 * 8 + 4 * 32);
  EXPECT_EQ(parameter(size, "emb.weight").bits_after, 40 * 8 + 10 * 32);
  EXPECT_EQ(parameter(size, "norm.weight").bits_after, 4 * 8 + 32);
}

TEST(GraphSize, AnAxisNoReadingOpCanDefaultLeavesTheSizeUncomputedAndSaysWhy) {
  // RMSNorm's mul has no default axis: prepare() raises (_axis_defaults.py).
  ProjectedSize size =
      size_of("quantization_config:\n  global_config: " + weights("int8", "per_channel") + "\n");
  EXPECT_NE(size.unavailable.find("norm.weight"), std::string::npos) << size.unavailable;
  EXPECT_NE(size.unavailable.find("mul [mul]"), std::string::npos) << size.unavailable;
  EXPECT_NE(size.unavailable.find("give the granularity an axis"), std::string::npos)
      << size.unavailable;
}

TEST(GraphSize, ATiedTensorTakesTheSpecOfTheReaderAnnotatedFirst) {
  // Name entries: the later one (head) is claimed, and so annotated, first.
  ProjectedSize size = size_of("quantization_config:\n  global_config: null\n"
                               "  module_name_configs:\n    emb: " +
                               weights("int8") + "\n    head: " + weights("int2") + "\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_EQ(parameter(size, "emb.weight").bits_after, 40 * 2 + 32);
  EXPECT_EQ(size.bits_after, kBitsBefore - 40 * 32 + 40 * 2 + 32);
}

TEST(GraphSize, AReaderWithoutAnOpinionLeavesTheTiedTensorToTheNext) {
  // head's entry names only biases: the embedding's entry decides the shared weight.
  ProjectedSize size = size_of(
      "quantization_config:\n  global_config: null\n  module_name_configs:\n    emb: " +
      weights("int8") +
      "\n    head: {op_state_spec: {bias: {dtype: int4}}, op_input_spec: null, op_output_spec: "
      "null}\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_EQ(parameter(size, "emb.weight").bits_after, 40 * 8 + 32);
}

TEST(GraphSize, ANullReaderAnnotatedFirstKeepsTheTiedTensorInFullPrecision) {
  ProjectedSize size = size_of("quantization_config:\n  global_config: " + weights("int8") +
                               "\n  module_name_configs:\n    head: null\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_FALSE(parameter(size, "emb.weight").compressed);
  EXPECT_TRUE(parameter(size, "conv.weight").compressed);
}

TEST(GraphSize, AStarStateSpecQuantizesThePrimarysBiasButNotThePatternMembers) {
  ProjectedSize size = size_of("quantization_config:\n  global_config: {op_input_spec: null, "
                               "op_output_spec: null, op_state_spec: {'*': {dtype: int8}}}\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_EQ(parameter(size, "conv.bias").bits_after, 4 * 8 + 32);
  EXPECT_FALSE(parameter(size, "bn.weight").compressed);
  EXPECT_FALSE(parameter(size, "bn.running_var").compressed);
}

TEST(GraphSize, AModuleStateSpecOverridesTheOpSpecsOfItsOwnTensors) {
  ProjectedSize size = size_of(
      "quantization_config:\n  global_config: " + weights("int8") +
      "\n  module_name_configs:\n    norm:\n      module_state_spec: {weight: {dtype: uint4}}\n"
      "      op_state_spec: {weight: {dtype: int2}}\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_EQ(parameter(size, "norm.weight").bits_after, 4 * 4 + 32);
}

TEST(GraphSize, ABlockSizeTheShapeDoesNotFitLeavesThatWeightInFullPrecision) {
  // prepare() disables that fake-quant during its calibration pass and removes it.
  ProjectedSize size =
      size_of("quantization_config:\n  global_config: null\n  module_name_configs:\n    emb: "
              "{op_input_spec: null, op_output_spec: null, op_state_spec: {weight: {dtype: int4, "
              "granularity: {type: per_block, block_size: 3, axis: 1}}}}\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_FALSE(parameter(size, "emb.weight").compressed);
  EXPECT_EQ(size.bits_after, size.bits_before);
}

TEST(GraphSize, TheDefaultGlobalConfigQuantizesEveryWeightToInt8PerChannel) {
  // No global_config written: ModuleQuantizerConfig()'s int8, per channel on axis 0.
  ProjectedSize size = size_of("quantization_config:\n  module_type_configs:\n"
                               "    torch.nn.modules.linear.Linear: null\n");
  ASSERT_EQ(size.unavailable, "");
  EXPECT_EQ(parameter(size, "conv.weight").bits_after, 72 * 8 + 4 * 32);
  EXPECT_EQ(parameter(size, "norm.weight").bits_after, 4 * 8 + 4 * 32);
}

TEST(GraphSize, AnEagerConfigOnAGraphIndexSaysWhereItIsSized) {
  ProjectedSize size = size_of("quantization_config:\n  execution_mode: eager\n");
  EXPECT_NE(size.unavailable.find("eager-mode index"), std::string::npos) << size.unavailable;
}

} // namespace
} // namespace opscope::resolve
