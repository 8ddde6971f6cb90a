// Reading the metadata torch.export records on each graph node, exactly the
// way coreai-opt reads it (coreai_opt/inspection/_graph_mode.py and
// coreai_opt/_utils/fx_utils.py). Shared by graph mode and eager mode.
#pragma once

#include "opscope/index/index.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opscope::inspect {

// `normalize_module_fqn`: "L['self'].layers[0]" -> "layers.0",
// "_modules['a']._modules['b']" -> "a.b".
std::string normalize_module_fqn(std::string_view path);

// The serialized `nn_module_stack` ("key,path,type;key,path,type", commas
// inside brackets do not split) as (raw path, type) pairs in dict order: a key
// seen twice keeps its first position and its last value, as `dict()` does.
std::vector<std::pair<std::string, std::string>> parse_nn_module_stack(std::string_view text);

// The module stack coreai-opt reports: parse_nn_module_stack with normalised names.
std::vector<index::ModuleContext> module_stack_of(std::string_view nn_module_stack);

// `_parse_stack_trace`: the `forward` frames of a `stack_trace`, outermost first.
std::vector<index::SourceFrame> parse_stack_trace(std::string_view stack_trace);

// `get_node_type`: "linear_1;builtin_function_or_method.linear" -> "linear";
// empty when torch_fn is missing or malformed (coreai-opt's None).
std::string op_type_of_torch_fn(std::string_view torch_fn);

} // namespace opscope::inspect
