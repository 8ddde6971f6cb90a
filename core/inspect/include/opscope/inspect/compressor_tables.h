// Which ops each coreai-opt compressor registers, applied to an index's ops. The data is
// the compressor table's (opscope/coreai/compressors.h); this is where the worker marks
// each op with it.
#pragma once

#include "opscope/index/index.h"

#include <cstdint>
#include <string_view>

namespace opscope::inspect {

// Graph-mode Quantizer (`GraphQuantizer.get_compressible_op_names`): a
// call_function node is compressible when a weighted-module pattern matches
// its aten target, or a sequential pattern's first op type equals its op type.
bool graph_quantizer_registers(std::string_view aten_target, std::string_view op_type);

// MagnitudePruner (`_PrunerSupportedOpsRegistry`) on a graph-mode node: by op type.
bool magnitude_pruner_registers(std::string_view op_type);

// The compressor bit set of a graph-mode call_function node.
std::uint8_t graph_compressors(std::string_view aten_target, std::string_view op_type);

// Marks graph-mode call_function `op` (aten target `aten_target`) with the compressors
// that register it, and records in `idx.compressor_types` a registered type that differs
// from the op's type (MagnitudePruner: multi_head_attention_forward is multi_head_attention).
void apply_graph_registries(index::Index& idx, index::Op& op, std::string_view aten_target);

// The same for an eager-mode op made by a call to `function` (torch.overrides.resolve_name).
void apply_eager_registries(index::Index& idx, index::Op& op, std::string_view function);

} // namespace opscope::inspect
