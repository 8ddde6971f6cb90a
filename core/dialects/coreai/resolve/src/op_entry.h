// Which entry of a module config decides one op, as coreai-opt 0.4.0 picks it (the graph
// Quantizer's _get_config_for_node, the eager handlers' _get_op_compression_components): the
// last op_name_config key matching the op's name, else the last op_type_config key equal to
// its type, else the module config itself. The one copy of that rule: the graph resolution,
// the eager ops and the eager weights hold the op tables in their own form (document keys or
// the config's values) and ask here.
#pragma once

#include <cstddef>
#include <string_view>

namespace opscope::resolve::detail {

// coreai-opt's _OpConfigLevel (the annotation sort reads it as a number).
enum class OpLevel { OpName = 0, OpType = 1, Module = 2 };

struct OpEntry {
  OpLevel level = OpLevel::Module;
  std::size_t at = 0; // OpName / OpType: the key's place in its table (dict order)
};

// `names` op_name_config keys, `name_matches(i)` whether the i-th matches the op's name;
// `types` op_type_config keys, `type_at(i)` the i-th; `op_type` the op's registry name (empty:
// no type key applies). Later keys are asked first and the first that applies wins.
template <typename NameMatches, typename TypeAt>
OpEntry op_entry(std::size_t names, NameMatches&& name_matches, std::size_t types, TypeAt&& type_at,
                 std::string_view op_type) {
  for (std::size_t i = names; i-- > 0;)
    if (name_matches(i))
      return {OpLevel::OpName, i};
  if (!op_type.empty())
    for (std::size_t i = types; i-- > 0;)
      if (std::string_view(type_at(i)) == op_type)
        return {OpLevel::OpType, i};
  return {};
}

} // namespace opscope::resolve::detail
