// Which ops each coreai-opt compressor registers, as data taken from
// coreai-opt 0.4.0's registries (see compressor_tables.cpp for the sources).
#pragma once

#include <cstdint>
#include <string_view>

namespace opscope::inspect {

// Graph-mode Quantizer (`GraphQuantizer.get_compressible_op_names`): a
// call_function node is compressible when a weighted-module pattern matches
// its aten target, or a sequential pattern's first op type equals its op type.
bool graph_quantizer_registers(std::string_view aten_target, std::string_view op_type);

// MagnitudePruner (`_PrunerSupportedOpsRegistry`): by op type.
bool magnitude_pruner_registers(std::string_view op_type);

// The compressor bit set of a graph-mode call_function node.
std::uint8_t graph_compressors(std::string_view aten_target, std::string_view op_type);

} // namespace opscope::inspect
