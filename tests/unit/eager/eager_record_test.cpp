// The eager record (what python/opscope_export/eager_trace.py stores in the archive) becomes
// the index `opscope summary --mode eager` prints: module tree, boundaries, compressor bits.
#include "opscope/inspect/eager.h"

#include <gtest/gtest.h>

#include <string>

using namespace opscope;
using index::Compressor;

namespace {

// MyModel from the reference (linear1 -> relu -> linear2) plus an in-place add at the top.
const char* kRecord = R"json({
  "format": "opscope-eager-trace", "version": 1, "torch_version": "2.13.0",
  "model_type": "m.MyModel",
  "ops": [
    {"name": "input_0", "kind": "input", "type": null, "function": null, "module_stack": [],
     "source": [], "inputs": [], "outputs": []},
    {"name": "linear1.weight", "kind": "state", "type": null, "function": null,
     "module_stack": [], "source": [], "inputs": [], "outputs": []},
    {"name": "linear1.linear", "kind": "call", "type": "linear",
     "function": "torch.nn.functional.linear",
     "module_stack": [["", "m.MyModel"], ["linear1", "torch.nn.modules.linear.Linear"]],
     "source": [{"file": "/src/m.py", "line": 16, "function": "forward", "code": "x = self.linear1(x)"
}],
     "inputs": [{"producer": "input_0", "slot": null, "state": false},
                {"producer": "linear1.weight", "slot": null, "state": true}],
     "outputs": [[0, ["relu.relu"]]]
},
    {"name": "relu.relu", "kind": "call", "type": "relu", "function": "torch.relu",
     "module_stack": [["", "m.MyModel"], ["relu", "torch.nn.modules.activation.ReLU"]],
     "source": [], "inputs": [{"producer": "linear1.linear", "slot": 0, "state": false}],
     "outputs": [[0, ["add_"]]]},
    {"name": "add_", "kind": "call", "type": "add_", "function": "torch.Tensor.add_",
     "module_stack": [["", "m.MyModel"]], "source": [],
     "inputs": [{"producer": "relu.relu", "slot": 0, "state": false},
                {"producer": "untracked_0", "slot": null, "state": false}],
     "outputs": [[0, ["output_0"]]]},
    {"name": "output_0", "kind": "output", "type": null, "function": null, "module_stack": [],
     "source": [], "inputs": [{"producer": "add_", "slot": 0, "state": false}], "outputs": []}
  ],
  "module_inputs": {"": [{"producer": "input_0", "slot": null, "state": false}],
                    "linear1": [{"producer": "input_0", "slot": null, "state": false}],
                    "relu": [{"producer": "linear1.linear", "slot": 0, "state": false}]},
  "module_outputs": {
  "" : [ {"producer" : "add_", "slot" : 0, "state" : false} ],
       "linear1" : [ {"producer" : "linear1.linear", "slot" : 0, "state" : false} ],
                   "relu" : [ {"producer" : "relu.relu", "slot" : 0, "state" : false} ]
}
})json";

} // namespace

TEST(EagerRecord, BuildsTheModuleTreeAndOpsInCallOrder) {
  index::Index idx = inspect::build_eager_index_from_record(kRecord, "m.pt2");
  EXPECT_EQ(idx.mode, index::Mode::Eager);
  ASSERT_EQ(idx.modules.size(), 3u);
  EXPECT_EQ(idx.model_type(), "m.MyModel");
  EXPECT_EQ(idx.modules[1].name, "linear1");
  EXPECT_EQ(idx.modules[2].name, "relu");
  EXPECT_EQ(idx.modules[0].children, (std::vector<int>{1, 2}));
  const index::Op* linear = idx.find_op("linear1.linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->inputs[0], (index::InputEdge{"input_0", std::nullopt, false}));
  EXPECT_TRUE(linear->inputs[1].is_state);
  EXPECT_EQ(linear->source.at(0).line, 16);
  EXPECT_EQ(idx.find_op("input_0")->kind, index::OpKind::Input);
  EXPECT_EQ(idx.find_op("output_0")->kind, index::OpKind::Output);
  EXPECT_EQ(idx.find_op("linear1.weight")->kind, index::OpKind::State);
  EXPECT_EQ(idx.provenance.source_files, (std::vector<std::string>{"/src/m.py"}));
  // The top-level op belongs to the root, after the submodules' ops.
  ASSERT_EQ(idx.modules[0].ops.size(), 1u);
  EXPECT_EQ(idx.ops[idx.modules[0].ops[0]].name, "add_");
}

TEST(EagerRecord, ModuleBoundariesNameTheOpsInside) {
  index::Index idx = inspect::build_eager_index_from_record(kRecord, "m.pt2");
  const index::Module* root = idx.find_module("");
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->inputs.size(), 1u);
  EXPECT_EQ(root->inputs[0].second, (std::vector<index::BoundaryEdge>{{"linear1.linear", 0}}));
  ASSERT_EQ(root->outputs.size(), 1u);
  EXPECT_EQ(root->outputs[0].second, (index::BoundaryEdge{"add_", 0}));
  const index::Module* relu = idx.find_module("relu");
  ASSERT_EQ(relu->inputs.size(), 1u);
  EXPECT_EQ(relu->inputs[0].second, (std::vector<index::BoundaryEdge>{{"relu.relu", 0}}));
}

TEST(EagerRecord, CompressorTablesSetBitsAndRegisteredTypes) {
  index::Index idx = inspect::build_eager_index_from_record(kRecord, "m.pt2");
  const index::Op& linear = *idx.find_op("linear1.linear");
  EXPECT_TRUE(linear.compressible_by(Compressor::Quantizer));
  EXPECT_TRUE(linear.compressible_by(Compressor::KMeansPalettizer));
  EXPECT_TRUE(linear.compressible_by(Compressor::MagnitudePruner));
  const index::Op& relu = *idx.find_op("relu.relu");
  EXPECT_FALSE(relu.compressible_by(Compressor::Quantizer));
  const index::Op& add = *idx.find_op("add_");
  EXPECT_TRUE(add.compressible_by(Compressor::Quantizer));
  EXPECT_FALSE(add.compressible_by(Compressor::KMeansPalettizer));
  EXPECT_EQ(idx.type_for(add, Compressor::Quantizer), "add");
  EXPECT_EQ(idx.type_for(add, Compressor::None), "add_");
  EXPECT_EQ(inspect::eager_registered_type(Compressor::MagnitudePruner,
                                           "torch.nn.functional.multi_head_attention_forward"),
            "multi_head_attention");
}

TEST(EagerRecord, UnusableRecordsSayWhatToDo) {
  try {
    inspect::build_eager_index_from_record("{\"a\": 1}", "m.pt2");
    FAIL() << "accepted a foreign record";
  } catch (const inspect::EagerRecordError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("m.pt2: the eager record", 0), 0u) << e.what();
  }
  try {
    inspect::build_eager_index_from_record(
        R"({"format": "opscope-eager-trace", "version": 1, "error": "RuntimeError: bad shape"})",
        "m.pt2");
    FAIL() << "accepted a failed recording";
  } catch (const inspect::EagerRecordError& e) {
    EXPECT_NE(std::string(e.what()).find("RuntimeError: bad shape"), std::string::npos);
  }
  try {
    inspect::build_eager_index_from_record(R"({"format": "opscope-eager-trace", "version": 99})",
                                           "m.pt2");
    FAIL() << "accepted another version";
  } catch (const inspect::EagerRecordError& e) {
    EXPECT_NE(std::string(e.what()).find("version 99"), std::string::npos);
  }
}

// A hostile record whose module stack nests deeper than any loader accepts fails as a model
// error here, not later as "corrupt index file" at every read of the index it would write.
TEST(EagerRecord, ModulesNestedBeyondTheLimitAreAModelError) {
  std::string stack = R"([["", "m.M"])";
  for (int depth = 0; depth < 300; ++depth)
    stack += R"(, ["m)" + std::to_string(depth) + R"(", "torch.nn.Linear"])";
  stack += "]";
  std::string record = R"({"format": "opscope-eager-trace", "version": 1, "model_type": "m.M",
    "ops": [{"name": "deep", "kind": "call", "type": "linear", "function": "f", "module_stack": )" +
                       stack + R"(, "source": [], "inputs": [], "outputs": []}],
    "module_inputs": {}, "module_outputs": {}})";
  try {
    inspect::build_eager_index_from_record(record, "deep.pt2");
    FAIL() << "built an index the loaders refuse";
  } catch (const inspect::ArchiveError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("deep.pt2: this model's structure cannot be indexed", 0),
              0u)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("nested more than 256"), std::string::npos) << e.what();
  }
}
