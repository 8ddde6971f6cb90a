// How coreai-opt 0.4.0 reads a config's state specs, shared by the eager resolution
// (eager_weights.cpp) and the graph Quantizer's (graph_weights.cpp): the entries' values, the
// defaults of a spec dict left unwritten, and which key of a spec dict names a tensor.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opscope::resolve::detail {

// coreai-opt's default op_state_spec of a module or op config whose op_state_spec is not
// written (ModuleQuantizerConfig / ModuleKMeansPalettizerConfig defaults).
nlohmann::ordered_json default_state_spec(index::Compressor c);

// _is_optimizable_tensor / _is_fx_node_single_element_tensor: floating point and more than
// one element.
bool optimizable(const index::Parameter& p);

// A spec dict as coreai-opt normalises it: a null dict disables every tensor; `fallback` when
// the field is not written.
nlohmann::ordered_json spec_dict(const nlohmann::ordered_json& config, const char* field,
                                 const nlohmann::ordered_json& fallback);

// get_last_matching_spec: the last key equal to one of the names, else "*"; nothing when no
// key names the tensor (the dict has no opinion on it).
std::optional<std::pair<std::string, nlohmann::ordered_json>>
last_matching(const nlohmann::ordered_json& dict, const std::vector<std::string>& names);

// Every local name of a tensor: the last component of each of its names (`weight`), as
// _get_state_aliases and the eager handler match spec dict keys against.
std::vector<std::string> local_names(const index::Parameter& p);

// last_matching(dict, local_names(p)) without copying: the matching key and its value, which
// live in `dict`.
std::optional<std::pair<std::string_view, const nlohmann::ordered_json*>>
last_matching(const nlohmann::ordered_json& dict, const index::Parameter& p);

// The config an entry holds, as written (null: the entry is null): a module entry's, an op
// entry's (op_name_config / op_type_config), global_config's, or coreai-opt's default global
// config for Decider::Kind::DefaultGlobal. `values` is read_values() of the document.
nlohmann::ordered_json entry_config(const config::ConfigDocument& document,
                                    const nlohmann::ordered_json& values, const Decider& decider);

} // namespace opscope::resolve::detail
