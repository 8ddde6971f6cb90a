// The compressor table's registries applied to ops (the data: core/dialects/coreai/tables/src/compressors.cpp).
#include "opscope/inspect/compressor_tables.h"

namespace opscope::inspect {
namespace {

using coreai::Compressor;

void mark(index::Index& idx, index::Op& op, Compressor c, std::optional<std::string_view> type) {
  if (!type)
    return;
  op.compressors |= static_cast<std::uint8_t>(c);
  if (*type != op.type)
    idx.compressor_types[op.name].emplace_back(c, std::string(*type));
}

} // namespace

bool graph_quantizer_registers(std::string_view aten_target, std::string_view op_type) {
  return coreai::graph_registered_type(Compressor::Quantizer, aten_target, op_type).has_value();
}

bool magnitude_pruner_registers(std::string_view op_type) {
  return coreai::graph_registered_type(Compressor::MagnitudePruner, "", op_type).has_value();
}

std::uint8_t graph_compressors(std::string_view aten_target, std::string_view op_type) {
  std::uint8_t bits = 0;
  for (const coreai::CompressorInfo& info : coreai::compressors())
    if (coreai::graph_registered_type(info.id, aten_target, op_type))
      bits |= static_cast<std::uint8_t>(info.id);
  return bits;
}

void apply_graph_registries(index::Index& idx, index::Op& op, std::string_view aten_target) {
  for (const coreai::CompressorInfo& info : coreai::compressors())
    mark(idx, op, info.id, coreai::graph_registered_type(info.id, aten_target, op.type));
}

void apply_eager_registries(index::Index& idx, index::Op& op, std::string_view function) {
  for (const coreai::CompressorInfo& info : coreai::compressors())
    mark(idx, op, info.id, coreai::eager_registered_type(info.id, function));
}

} // namespace opscope::inspect
