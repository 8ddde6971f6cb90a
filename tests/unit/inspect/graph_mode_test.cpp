// Graph mode against what coreai-opt's ModelInspector(execution_mode="graph")
// reports for the fixture models (checked with coreai-opt 0.4.0).
#include "opscope/inspect/archive.h"
#include "opscope/inspect/graph_mode.h"

#include "fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace {

using namespace opscope::index;
using opscope::inspect::build_graph_index;
using opscope::inspect::read_archive;
using opscope::inspect::testing::fixture;
using opscope::inspect::testing::line_of;
using opscope::inspect::testing::models_py;
using opscope::inspect::testing::reference_py;
using ::testing::ElementsAre;
using ::testing::Pair;

Index index_of(const std::string& name) {
  return build_graph_index(read_archive(fixture(name)));
}

const Op& op(const Index& index, const std::string& name) {
  const Op* found = index.find_op(name);
  if (!found)
    throw std::runtime_error("no op " + name);
  return *found;
}

std::vector<std::string> names(const Index& index, const std::vector<int>& ops) {
  std::vector<std::string> out;
  for (int i : ops)
    out.push_back(index.ops[i].name);
  return out;
}

std::vector<std::string> consumers(const Op& op) {
  return op.outputs.empty() ? std::vector<std::string>{} : op.outputs.front().second;
}

InputEdge from(const std::string& producer) {
  return {producer, 0, false};
}
InputEdge state(const std::string& name) {
  return {name, std::nullopt, true};
}
BoundaryEdge at(const std::string& op, int slot) {
  return {op, slot};
}

TEST(GraphMode, MyModelMatchesTheInspectionGuide) {
  Index index = index_of("mymodel.pt2");
  EXPECT_EQ(index.mode, Mode::Graph);
  EXPECT_EQ(index.model_type(), "fixtures.reference.MyModel");

  // Unlifted order: parameters as get_attr states first, then x, the calls, the output.
  std::vector<std::pair<std::string, OpKind>> order;
  for (const auto& o : index.ops)
    order.emplace_back(o.name, o.kind);
  EXPECT_THAT(order, ElementsAre(Pair("linear1.weight", OpKind::State),
                                 Pair("linear1.bias", OpKind::State),
                                 Pair("linear2.weight", OpKind::State),
                                 Pair("linear2.bias", OpKind::State), Pair("x", OpKind::Input),
                                 Pair("linear", OpKind::Call), Pair("relu", OpKind::Call),
                                 Pair("linear_1", OpKind::Call), Pair("output", OpKind::Output)));

  const Op& linear = op(index, "linear");
  EXPECT_EQ(linear.type, "linear");
  EXPECT_THAT(linear.module_stack,
              ElementsAre(ModuleContext{"", "fixtures.reference.MyModel"},
                          ModuleContext{"linear1", "torch.nn.modules.linear.Linear"}));
  EXPECT_THAT(linear.inputs,
              ElementsAre(from("x"), state("linear1.weight"), state("linear1.bias")));
  EXPECT_THAT(linear.outputs, ElementsAre(Pair(0, ElementsAre("relu"))));
  ASSERT_EQ(linear.source.size(), 2u);
  EXPECT_EQ(linear.source[0].file, reference_py());
  EXPECT_EQ(linear.source[0].line, line_of("x = self.linear1(x)", reference_py()));
  EXPECT_EQ(linear.source[0].code, "x = self.linear1(x)");
  EXPECT_EQ(linear.source[0].function, "forward");
  EXPECT_EQ(linear.source[1].code, "return F.linear(input, self.weight, self.bias)");

  const Op& relu = op(index, "relu");
  EXPECT_EQ(relu.type, "relu");
  EXPECT_THAT(relu.inputs, ElementsAre(from("linear")));
  EXPECT_THAT(consumers(op(index, "linear_1")), ElementsAre("output"));
  EXPECT_THAT(op(index, "output").inputs, ElementsAre(from("linear_1")));
  EXPECT_THAT(op(index, "output").outputs, ElementsAre(Pair(0, ElementsAre())));
  EXPECT_THAT(consumers(op(index, "x")), ElementsAre("linear"));
  EXPECT_THAT(consumers(op(index, "linear2.bias")), ElementsAre("linear_1"));
  EXPECT_TRUE(op(index, "x").module_stack.empty());

  // The tree: relu is a module with an op that Quantizer does not register.
  ASSERT_EQ(index.modules.size(), 4u);
  const Module& root = index.root();
  EXPECT_EQ(root.name, "");
  EXPECT_THAT(names(index, root.children.empty() ? std::vector<int>{} : std::vector<int>{}),
              ElementsAre());
  std::vector<std::string> children;
  for (int c : root.children)
    children.push_back(index.modules[c].name);
  EXPECT_THAT(children, ElementsAre("linear1", "relu", "linear2"));
  EXPECT_THAT(root.inputs, ElementsAre(Pair(0, ElementsAre(at("linear", 0)))));
  EXPECT_THAT(root.outputs, ElementsAre(Pair(0, at("linear_1", 0))));
  const Module* linear2 = index.find_module("linear2");
  ASSERT_NE(linear2, nullptr);
  EXPECT_EQ(linear2->type, "torch.nn.modules.linear.Linear");
  EXPECT_THAT(names(index, linear2->ops), ElementsAre("linear_1"));
  EXPECT_THAT(linear2->inputs, ElementsAre(Pair(0, ElementsAre(at("linear_1", 0)))));

  EXPECT_TRUE(linear.compressible_by(Compressor::Quantizer));
  EXPECT_FALSE(relu.compressible_by(Compressor::Quantizer));
  EXPECT_TRUE(relu.compressible_by(Compressor::None));

  EXPECT_THAT(index.provenance.source_files, ::testing::Contains(std::string(reference_py())));
  EXPECT_EQ(index.provenance.archive, fixture("mymodel.pt2"));
  EXPECT_EQ(index.provenance.archive_hash.size(), 16u);
}

TEST(GraphMode, ResNetLikeTreeAndBoundaries) {
  Index index = index_of("resnet_like.pt2");
  std::vector<std::string> modules;
  for (const auto& m : index.modules)
    modules.push_back(m.name);
  EXPECT_THAT(modules, ElementsAre("", "stem", "stem.0", "stem.1", "stem.2", "pool", "layers.0",
                                   "layers.0.conv1", "layers.0.bn1", "layers.0.conv2",
                                   "layers.0.bn2", "layers.1", "layers.1.conv1", "layers.1.bn1",
                                   "layers.1.conv2", "layers.1.bn2", "avg", "fc"));
  const Module& block = *index.find_module("layers.0");
  EXPECT_EQ(block.type, "fixture_models.Block");
  EXPECT_EQ(index.modules[block.parent].name, "");
  // F.relu and `+` belong to the block itself; convs and bns to their children.
  EXPECT_THAT(names(index, block.ops), ElementsAre("relu_1", "add", "relu_2"));
  // The block input reaches conv1 and, through the skip connection, add's slot 1.
  EXPECT_THAT(block.inputs, ElementsAre(Pair(0, ElementsAre(at("conv2d_1", 0))),
                                        Pair(1, ElementsAre(at("add", 1)))));
  EXPECT_THAT(block.outputs, ElementsAre(Pair(0, at("relu_2", 0))));

  // A bias-free conv has only its weight as state.
  EXPECT_THAT(op(index, "conv2d_1").inputs,
              ElementsAre(from("max_pool2d"), state("layers.0.conv1.weight")));
  EXPECT_THAT(op(index, "conv2d").module_stack,
              ElementsAre(ModuleContext{"", "fixture_models.ResNetLike"},
                          ModuleContext{"stem", "torch.nn.modules.container.Sequential"},
                          ModuleContext{"stem.0", "torch.nn.modules.conv.Conv2d"}));
  // FX user order, not graph order: unlifting re-registers every consumer of a
  // parameter, so conv2d_1 (which reads a weight) comes after add.
  EXPECT_THAT(consumers(op(index, "max_pool2d")), ElementsAre("add", "conv2d_1"));
  EXPECT_THAT(consumers(op(index, "relu_2")), ElementsAre("add_1", "conv2d_3"));
  EXPECT_EQ(op(index, "add").source.back().line, line_of("return F.relu(y + x)"));
}

TEST(GraphMode, QuantizerRegistersWhatGraphQuantizerMatches) {
  Index index = index_of("resnet_like.pt2");
  std::map<std::string, bool> expected = {
      {"conv2d", true}, {"batch_norm", false}, {"relu", false},   {"max_pool2d", true},
      {"add", true},    {"relu_2", false},     {"flatten", true}, {"adaptive_avg_pool2d", true},
      {"linear", true}, {"output", false},     {"x", false},
  };
  for (const auto& [name, registered] : expected)
    EXPECT_EQ(op(index, name).compressible_by(Compressor::Quantizer), registered) << name;
  EXPECT_TRUE(op(index, "conv2d").compressible_by(Compressor::MagnitudePruner));
  EXPECT_FALSE(op(index, "add").compressible_by(Compressor::MagnitudePruner));
}

TEST(GraphMode, MultiOutputOpsGetTheirGetitemNodes) {
  Index index = index_of("multi_output.pt2");
  // Buffers and tensor constants are states named by their attribute.
  EXPECT_EQ(op(index, "scale").kind, OpKind::State);
  EXPECT_EQ(op(index, "const").kind, OpKind::State);
  EXPECT_THAT(op(index, "mul").inputs, ElementsAre(from("embedding"), state("scale")));
  // aten.embedding takes the weight first.
  EXPECT_THAT(op(index, "embedding").inputs, ElementsAre(state("emb.weight"), from("idx")));
  EXPECT_THAT(index.find_module("emb")->inputs,
              ElementsAre(Pair(0, ElementsAre(at("embedding", 1)))));

  EXPECT_THAT(consumers(op(index, "split")), ElementsAre("getitem", "getitem_1"));
  const Op& getitem = op(index, "getitem");
  EXPECT_EQ(getitem.type, "split"); // a getitem carries its op's metadata
  EXPECT_THAT(getitem.inputs, ElementsAre(from("split")));
  EXPECT_THAT(consumers(getitem), ElementsAre("max_pool1d_with_indices", "matmul"));
  EXPECT_THAT(consumers(op(index, "max_pool1d_with_indices")),
              ElementsAre("getitem_2", "getitem_3"));
  EXPECT_EQ(op(index, "getitem_3").module_stack.back().name, "pool");
  // An unused output still has its node, with no consumers.
  EXPECT_THAT(op(index, "getitem_5").outputs, ElementsAre(Pair(0, ElementsAre())));
  // Nested tuple outputs are flattened into the output node's inputs.
  EXPECT_THAT(op(index, "output").inputs,
              ElementsAre(from("getitem_2"), from("getitem_3"), from("getitem_4"), from("matmul")));
  EXPECT_THAT(index.root().outputs,
              ElementsAre(Pair(0, at("getitem_2", 0)), Pair(1, at("getitem_3", 0)),
                          Pair(2, at("getitem_4", 0)), Pair(3, at("matmul", 0))));
  EXPECT_TRUE(op(index, "matmul").compressible_by(Compressor::Quantizer));
  EXPECT_FALSE(op(index, "max_pool1d_with_indices").compressible_by(Compressor::Quantizer));
}

TEST(GraphMode, InPlaceBufferUpdateInTrainingDialect) {
  Index index = index_of("buffer_update.pt2");
  const Op& add = op(index, "add_");
  EXPECT_EQ(add.type, "add_");
  EXPECT_THAT(add.inputs, ElementsAre(state("bn.num_batches_tracked")));
  EXPECT_THAT(add.outputs, ElementsAre(Pair(0, ElementsAre())));
  EXPECT_THAT(names(index, index.find_module("bn")->ops), ElementsAre("add_", "batch_norm"));
}

TEST(GraphMode, MutatedBuffersGetCopyNodesLikeEpModule) {
  Index index = index_of("buffer_update_decomposed.pt2");
  const Op& copy = op(index, "copy__default");
  EXPECT_EQ(copy.type, "");
  EXPECT_TRUE(copy.module_stack.empty());
  EXPECT_THAT(copy.inputs, ElementsAre(state("bn.running_mean"), from("getitem_3")));
  EXPECT_THAT(consumers(op(index, "bn.num_batches_tracked")),
              ElementsAre("add", "copy__default_2"));
  EXPECT_THAT(op(index, "output").inputs, ElementsAre(from("relu")));
  // Unused outputs of the functional batch norm were dead-code eliminated.
  EXPECT_EQ(index.find_op("_native_batch_norm_legit_functional_unused_1"), nullptr);
  // The copies are outside every module, so the running stats leave the root.
  EXPECT_THAT(index.root().outputs,
              ElementsAre(Pair(0, at("add", 0)), Pair(1, at("getitem_3", 0)),
                          Pair(2, at("getitem_4", 0)), Pair(3, at("relu", 0))));
}

} // namespace

namespace {

// ep.module() deep-copies the graph, and FX renames a node called like a Python
// builtin: coreai-opt shows the argument `input` as `input_1`.
TEST(GraphMode, ArgumentNamedLikeABuiltinIsRenamedAsFxDoes) {
  Index index = index_of("builtin_argument_name.pt2");
  std::vector<std::string> inputs;
  for (const auto& o : index.ops)
    if (o.kind == OpKind::Input)
      inputs.push_back(o.name);
  EXPECT_THAT(inputs, ElementsAre("input_1", "n", "scale"));
  EXPECT_THAT(op(index, "linear").inputs,
              ElementsAre(from("input_1"), state("proj.weight"), state("proj.bias")));
  EXPECT_THAT(consumers(op(index, "n")), ElementsAre()); // an int folded into the graph
  EXPECT_THAT(op(index, "mul").inputs, ElementsAre(from("linear"), from("scale")));
}

} // namespace
