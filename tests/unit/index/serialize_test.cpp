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
  auto pos = text.find("\"version\":1");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 11, "\"version\":99");
  EXPECT_THROW(from_json_text(text, "old.idx"), IndexFormatError);
}
