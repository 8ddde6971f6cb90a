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

} // namespace
