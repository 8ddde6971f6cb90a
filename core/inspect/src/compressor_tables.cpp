// Compressor registries of coreai-opt 0.4.0, as tables. Regenerate by reading
// the sources named below when coreai-opt changes.
#include "opscope/inspect/compressor_tables.h"

#include "opscope/index/index.h"

#include <algorithm>

namespace opscope::inspect {
namespace {

// coreai_opt/quantization/_graph/_annotation_pattern_registry.py, the
// WeightedModulePattern subclasses (conv*, conv_transpose*, linear*, embedding,
// with or without bn/activation). They match with SubgraphMatcher
// (ignore_literals=True, placeholders are wildcards) and key each match by the
// op consuming the weight, so every node whose aten target is the pattern's
// weighted op is selected (match_pattern_with_subgraph_matcher in
// _annotation_utils.py). Targets as the pattern graphs export them in torch 2.13.
constexpr std::string_view kWeightedTargets[] = {
    "torch.ops.aten.conv1d.default",           "torch.ops.aten.conv1d.padding",
    "torch.ops.aten.conv2d.default",           "torch.ops.aten.conv2d.padding",
    "torch.ops.aten.conv3d.default",           "torch.ops.aten.conv3d.padding",
    "torch.ops.aten.conv_transpose1d.default", "torch.ops.aten.conv_transpose2d.input",
    "torch.ops.aten.conv_transpose3d.input",   "torch.ops.aten.linear.default",
    "torch.ops.aten.embedding.default",
};

// The NAryActPattern and SharedObserverModulePattern subclasses (matmul,
// einsum, add, mul, sub, flatten, maxpool, avgpool, concat, each also with an
// activation appended). They match chains by `get_node_type` and key each by
// its first node (match_pattern_with_sequential_partitions); the single-op
// patterns have no branching condition, so a node is selected exactly when
// its op type is one of these.
constexpr std::string_view kSequentialTypes[] = {
    "matmul",
    "einsum",
    "add",
    "add_",
    "mul",
    "mul_",
    "sub",
    "sub_",
    "isub",
    "flatten",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "mean",
    "cat",
    "concat",
};

// coreai_opt/pruning/supported_ops_registry.py: F.linear, F.conv1d/2d/3d,
// F.conv_transpose1d/2d/3d, F.multi_head_attention_forward.
constexpr std::string_view kPrunerTypes[] = {
    "linear",           "conv1d",           "conv2d",           "conv3d",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "multi_head_attention_forward",
};

template <std::size_t N> bool contains(const std::string_view (&table)[N], std::string_view value) {
  return !value.empty() && std::find(table, table + N, value) != table + N;
}

} // namespace

bool graph_quantizer_registers(std::string_view aten_target, std::string_view op_type) {
  return contains(kWeightedTargets, aten_target) || contains(kSequentialTypes, op_type);
}

bool magnitude_pruner_registers(std::string_view op_type) {
  return contains(kPrunerTypes, op_type);
}

std::uint8_t graph_compressors(std::string_view aten_target, std::string_view op_type) {
  std::uint8_t bits = 0;
  if (graph_quantizer_registers(aten_target, op_type))
    bits |= static_cast<std::uint8_t>(index::Compressor::Quantizer);
  if (magnitude_pruner_registers(op_type))
    bits |= static_cast<std::uint8_t>(index::Compressor::MagnitudePruner);
  return bits;
}

} // namespace opscope::inspect
