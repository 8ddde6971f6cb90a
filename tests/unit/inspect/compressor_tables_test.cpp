#include "opscope/inspect/compressor_tables.h"

#include "opscope/index/index.h"

#include <gtest/gtest.h>

namespace {

using namespace opscope::inspect;

TEST(CompressorTables, WeightedPatternsMatchByAtenTarget) {
  for (const char* target :
       {"torch.ops.aten.linear.default", "torch.ops.aten.conv2d.default",
        "torch.ops.aten.conv1d.padding", "torch.ops.aten.conv_transpose1d.default",
        "torch.ops.aten.conv_transpose2d.input", "torch.ops.aten.embedding.default"})
    EXPECT_TRUE(graph_quantizer_registers(target, "anything")) << target;
  EXPECT_FALSE(graph_quantizer_registers("torch.ops.aten.batch_norm.default", "batch_norm"));
  EXPECT_FALSE(graph_quantizer_registers("getitem", "linear"))
      << "a getitem of a linear is not the weighted op";
}

TEST(CompressorTables, SequentialPatternsMatchByOpType) {
  for (const char* type : {"add", "add_", "mul", "sub", "isub", "matmul", "einsum", "cat", "concat",
                           "flatten", "max_pool2d", "avg_pool1d", "adaptive_avg_pool2d", "mean"})
    EXPECT_TRUE(graph_quantizer_registers("torch.ops.aten.x.default", type)) << type;
  for (const char* type : {"relu", "softmax", "layer_norm", "max_pool2d_with_indices", "iadd", ""})
    EXPECT_FALSE(graph_quantizer_registers("torch.ops.aten.x.default", type)) << type;
}

TEST(CompressorTables, PrunerAndBits) {
  EXPECT_TRUE(magnitude_pruner_registers("conv_transpose3d"));
  EXPECT_TRUE(magnitude_pruner_registers("multi_head_attention_forward"));
  EXPECT_FALSE(magnitude_pruner_registers("matmul"));
  using opscope::index::Compressor;
  EXPECT_EQ(graph_compressors("torch.ops.aten.linear.default", "linear"),
            static_cast<std::uint8_t>(Compressor::Quantizer) |
                static_cast<std::uint8_t>(Compressor::MagnitudePruner));
  EXPECT_EQ(graph_compressors("torch.ops.aten.relu.default", "relu"), 0);
}

// coreai-opt's pruner files F.multi_head_attention_forward under `multi_head_attention`
// (its registry key); in a graph every node of that call has the function's name as op
// type, so op_type_config must be matched against the registry's name in both modes.
TEST(CompressorTables, GraphPrunerFilesAttentionUnderTheRegistryName) {
  using opscope::index::Compressor;
  opscope::index::Index idx;
  opscope::index::Op op;
  op.name = "linear";
  op.type = "multi_head_attention_forward";
  apply_graph_registries(idx, op, "torch.ops.aten.linear.default");
  EXPECT_TRUE(op.compressible_by(Compressor::Quantizer));
  EXPECT_TRUE(op.compressible_by(Compressor::MagnitudePruner));
  EXPECT_EQ(idx.type_for(op, Compressor::MagnitudePruner), "multi_head_attention");
  EXPECT_EQ(idx.type_for(op, Compressor::Quantizer), "multi_head_attention_forward");
  EXPECT_EQ(opscope::coreai::eager_registered_type(
                Compressor::MagnitudePruner, "torch.nn.functional.multi_head_attention_forward"),
            "multi_head_attention");
}

// Messages and help list the compressors from the one table.
TEST(CompressorTables, OneTableNamesEveryCompressor) {
  using namespace opscope::coreai;
  EXPECT_EQ(compressor_names(), "quantizer, kmeans_palettizer or magnitude_pruner");
  for (const CompressorInfo& c : compressors()) {
    EXPECT_EQ(parse_compressor(c.name), c.id);
    EXPECT_EQ(find_by_root_key(c.root_key), &c);
    EXPECT_TRUE(mode_supports(Mode::Eager, c.id)) << c.name;
  }
  EXPECT_TRUE(mode_supports(Mode::Graph, Compressor::Quantizer));
  EXPECT_FALSE(mode_supports(Mode::Graph, Compressor::MagnitudePruner));
  EXPECT_EQ(default_mode(Compressor::KMeansPalettizer), Mode::Eager);
  EXPECT_EQ(parse_compressor("none"), Compressor::None);
  EXPECT_FALSE(parse_compressor("quantiser"));
}

} // namespace
