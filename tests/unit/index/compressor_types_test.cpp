// The eager registries rename some ops (Quantizer files `x.add_()` under "add"); the
// index must keep that through its file, or `op_type_config: {add: ...}` would match
// nothing in `opscope check` after a cache load.
#include "opscope/index/serialize.h"

#include <gtest/gtest.h>

using namespace opscope::index;

TEST(CompressorTypes, SurviveTheIndexFile) {
  Index index;
  index.mode = Mode::Eager;
  index.modules.push_back({"", "m.M", -1, {}, {0}, {}, {}});
  Op add;
  add.name = "add_";
  add.type = "add_";
  add.module_stack = {{"", "m.M"}};
  add.compressors = static_cast<std::uint8_t>(Compressor::Quantizer);
  index.ops = {add};
  index.compressor_types["add_"] = {{Compressor::Quantizer, "add"}};
  index.rebuild_lookups();

  Index copy = from_json_text(to_json_text(index), "test");
  const Op* op = copy.find_op("add_");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(copy.type_for(*op, Compressor::Quantizer), "add");
  EXPECT_EQ(copy.type_for(*op, Compressor::None), "add_");
  EXPECT_EQ(copy.type_for(*op, Compressor::KMeansPalettizer), "add_");
}

TEST(CompressorTypes, ModeSupportsFollowsCoreaiOpt) {
  EXPECT_TRUE(mode_supports(Mode::Graph, Compressor::None));
  EXPECT_TRUE(mode_supports(Mode::Graph, Compressor::Quantizer));
  EXPECT_FALSE(mode_supports(Mode::Graph, Compressor::KMeansPalettizer));
  EXPECT_FALSE(mode_supports(Mode::Graph, Compressor::MagnitudePruner));
  EXPECT_TRUE(mode_supports(Mode::Eager, Compressor::Quantizer));
  EXPECT_TRUE(mode_supports(Mode::Eager, Compressor::KMeansPalettizer));
  EXPECT_TRUE(mode_supports(Mode::Eager, Compressor::MagnitudePruner));
}
