#include "opscope/index/serialize.h"

#include <gtest/gtest.h>

using namespace opscope::index;

namespace {
Index tiny_index() {
  Index index;
  index.mode = Mode::Eager;
  index.provenance.archive = "my.pt2";
  index.modules.push_back(
      {"", "m.MyModel", -1, {1}, {}, {{0, {{"linear", 0}}}}, {{0, {"linear", 0}}}});
  index.modules.push_back({"linear1", "torch.nn.modules.linear.Linear", 0, {}, {1}, {}, {}});
  Op x{"x", "", OpKind::Input, {}, {}, {}, {{0, {"linear"}}}, 0};
  Op linear{"linear",
            "linear",
            OpKind::Call,
            {{"", "m.MyModel"}, {"linear1", "torch.nn.modules.linear.Linear"}},
            {{"m.py", 13, "forward", "x = self.linear1(x)"}},
            {{"x", 0, false}, {"linear1.weight", std::nullopt, true}},
            {{0, {"output"}}},
            static_cast<std::uint8_t>(Compressor::Quantizer)};
  index.ops = {x, linear};
  index.rebuild_lookups();
  return index;
}
} // namespace

TEST(IndexSerialize, RoundTripKeepsEveryField) {
  Index original = tiny_index();
  Index copy = from_json_text(to_json_text(original), "test");
  ASSERT_EQ(copy.ops.size(), 2u);
  EXPECT_EQ(copy.mode, Mode::Eager);
  const Op* linear = copy.find_op("linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->module_stack.back().name, "linear1");
  EXPECT_EQ(linear->inputs, original.ops[1].inputs);
  EXPECT_EQ(linear->source.at(0).line, 13);
  EXPECT_TRUE(linear->compressible_by(Compressor::Quantizer));
  EXPECT_FALSE(linear->compressible_by(Compressor::KMeansPalettizer));
  EXPECT_EQ(copy.find_module("linear1")->type, "torch.nn.modules.linear.Linear");
  EXPECT_EQ(copy.root().inputs.at(0).second.at(0), (BoundaryEdge{"linear", 0}));
}

TEST(IndexSerialize, RejectsOtherFilesWithAMessageNamingThem) {
  try {
    from_json_text("{\"weights\": 1}", "model.json");
    FAIL() << "expected an error";
  } catch (const IndexFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("model.json: not an opscope index"), std::string::npos);
  }
}

TEST(IndexSerialize, RejectsAnotherFormatVersion) {
  std::string text = to_json_text(tiny_index());
  auto pos = text.find("\"version\":3");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 11, "\"version\":99");
  EXPECT_THROW(from_json_text(text, "old.idx"), IndexFormatError);
}

TEST(IndexSerialize, ParametersRoundTripWithTiedNamesOwnersAndReaders) {
  Index original = tiny_index();
  original.parameters = {{"linear1.weight", {"head.weight"}, {4, 3}, "float32", false},
                         {"linear1.bias", {}, {4}, "bfloat16", false},
                         {"steps", {}, {}, "int64", true}};
  original.rebuild_lookups();
  Index copy = from_json_text(to_json_text(original), "test");
  ASSERT_EQ(copy.parameters.size(), 3u);
  const Parameter* tied = copy.find_parameter("head.weight");
  ASSERT_NE(tied, nullptr);
  EXPECT_EQ(tied->name, "linear1.weight"); // one tensor under both names
  EXPECT_EQ(tied->shape, (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(tied->numel(), 12);
  EXPECT_EQ(tied->element_bits(), 32);
  EXPECT_EQ(copy.find_parameter("linear1.bias")->element_bits(), 16);
  EXPECT_TRUE(copy.find_parameter("steps")->buffer);
  EXPECT_EQ(copy.find_parameter("steps")->numel(), 1); // a scalar
  // The linear op reads linear1.weight (its state input); linear1 owns weight and bias.
  EXPECT_EQ(copy.op_parameters(1), (std::vector<int>{0}));
  EXPECT_EQ(copy.module_parameters(1), (std::vector<int>{0, 1}));
  EXPECT_EQ(copy.module_parameters(0), (std::vector<int>{2}));
}

TEST(IndexSerialize, RefusesParameterShapesBeyondBoundsAndDuplicateNames) {
  Index index = tiny_index();
  index.parameters = {{"w", {}, {1}, "float32", false}};
  const std::string text = to_json_text(index);
  auto with_parameters = [&](const std::string& parameters) {
    std::string changed = text;
    auto at = changed.find("\"parameters\":[");
    auto end = changed.find(']', at + 14);
    return changed.replace(at, end + 1 - at, "\"parameters\":" + parameters);
  };
  // Elements overflowing 64 bits, a negative size, a duplicate name: corrupt, not a crash.
  for (
      const char* bad :
      {R"([{"name":"w","shape":[4294967296,4294967296,4294967296],"dtype":"float32"}])",
       R"([{"name":"w","shape":[-1],"dtype":"float32"}])",
       R"([{"name":"w","shape":[1],"dtype":"float32"},{"name":"v","aliases":["w"],"shape":[1],"dtype":"float32"}])"}) {
    try {
      from_json_text(with_parameters(bad), "bad.idx");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const IndexFormatError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.idx: corrupt index file"), std::string::npos)
          << e.what();
    }
  }
}

TEST(IndexSerialize, ModuleObjectsRoundTripAndNameEachCallsObject) {
  Index original = tiny_index();
  EXPECT_EQ(to_json_text(original).find("module_objects"), std::string::npos); // no aliases
  original.module_objects = {{"", "m.MyModel", {}, {1}},
                             {"linear1", "torch.nn.modules.linear.Linear", {"shortcut"}, {}}};
  // What PEFT's isinstance tests read: bases, the root's model_type, the output head.
  original.module_objects[1].mro = {"m.Base"};
  original.module_objects[1].output_embeddings = true;
  original.module_objects[0].model_type = "llama";
  // What llm-compressor's linearize_moe reads: the experts' decorator arguments.
  original.module_objects[1].experts_implementation =
      ModuleObject::ExpertsImplementation{true, false};
  Index copy = from_json_text(to_json_text(original), "aliases.idx");
  ASSERT_EQ(copy.module_objects.size(), 2u);
  EXPECT_EQ(copy.module_objects[1].aliases, std::vector<std::string>{"shortcut"});
  EXPECT_TRUE(copy.module_objects[1].is_a("m.Base"));
  EXPECT_TRUE(copy.module_objects[1].is_a("torch.nn.modules.linear.Linear"));
  EXPECT_FALSE(copy.module_objects[0].is_a("m.Base"));
  EXPECT_TRUE(copy.module_objects[1].output_embeddings);
  EXPECT_FALSE(copy.module_objects[0].output_embeddings);
  EXPECT_EQ(copy.module_objects[0].model_type, "llama");
  ASSERT_TRUE(copy.module_objects[1].experts_implementation);
  EXPECT_TRUE(copy.module_objects[1].experts_implementation->transposed);
  EXPECT_FALSE(copy.module_objects[1].experts_implementation->gated);
  EXPECT_FALSE(copy.module_objects[0].experts_implementation);
  EXPECT_EQ(copy.module_objects[0].children, std::vector<int>{1});
  EXPECT_EQ(copy.module_object(1), 1);
  EXPECT_EQ(copy.find_module_object("shortcut"), 1);
  EXPECT_EQ(copy.canonical_name(1), "linear1");
}

TEST(IndexSerialize, RefusesAModuleObjectTableThatIsNotATree) {
  Index index = tiny_index();
  index.module_objects = {{"", "m.MyModel", {}, {1}},
                          {"linear1", "torch.nn.modules.linear.Linear", {"shortcut"}, {}}};
  const std::string text = to_json_text(index);
  auto with_objects = [&](const std::string& objects) {
    std::string changed = text;
    auto at = changed.find("\"module_objects\":[");
    return changed.replace(at, changed.size() - 1 - at, "\"module_objects\":" + objects);
  };
  // A child out of range, a name listed twice, a table not starting at the root.
  for (
      const char* bad :
      {R"([{"name":"","type":"m","children":[7]}])",
       R"([{"name":"","type":"m","children":[1]},{"name":"a","type":"t","aliases":["a"],"children":[]}])",
       R"([{"name":"a","type":"m","children":[]}])"}) {
    try {
      from_json_text(with_objects(bad), "bad.idx");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const IndexFormatError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.idx: corrupt index file"), std::string::npos)
          << e.what();
    }
  }
}
