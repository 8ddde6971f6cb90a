// The `parameters` part of `opscope explain` for a magnitude_pruning_config: which spec each
// parameter gets from MagnitudePruner's prepare() (opscope/resolve/pruner.h), and the entry
// whose spec dict gave it.
#pragma once

#include "opscope/config/document.h"
#include "opscope/index/index.h"

#include <nlohmann/json.hpp>

namespace opscope::cli {

// [{parameter, module, entry: {path, line} | null, spec_table, spec_key, spec | null}] for
// every parameter a registered call or a module_state_spec reaches, Index::parameters order;
// spec has coreai-opt's defaults filled in, null when the parameter stays dense.
nlohmann::ordered_json pruned_parameters_json(const config::ConfigDocument& document,
                                              const index::Index& index);

// The same as a table on stdout: parameter, target sparsity and scheme, deciding entry.
void print_pruned_parameters(const config::ConfigDocument& document, const index::Index& index);

} // namespace opscope::cli
