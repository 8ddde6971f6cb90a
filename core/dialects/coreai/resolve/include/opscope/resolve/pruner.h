// What a magnitude_pruning_config does to a model, ported from coreai-opt 0.4.0's
// MagnitudePruner (pruning/magnitude_pruner.py), which runs eager only:
//  - each module's config: build_module_config_dict as for the other compressors (resolve.h:
//    module name > module type > global, later entries of a table win, a claimed module's
//    unclaimed children go with it, module-level specs stay with the module matched);
//  - the ops it configures: every call of a function in _PrunerSupportedOpsRegistry
//    (linear, conv1d/2d/3d, conv_transpose1d/2d/3d, multi_head_attention), each taking its
//    innermost module's config and in it op_name_config (last match) > op_type_config (last
//    equal) > the module config's own op_state_spec (TorchFunctionEagerHandler, as the eager
//    Quantizer: eager_weights.h);
//  - what it prunes: the parameters those calls read whose local name the spec dict names
//    (default {"weight", "in_proj_weight"} at target_sparsity 0.5, unstructured), floating
//    and of more than one element; module_state_spec reaches any parameter its module owns.
// Pure: reads only the parsed document, its values and the index.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/resolve.h"

#include <nlohmann/json.hpp>

namespace opscope::resolve {

// Module decisions and the ops a compressor coreai-opt applies in eager mode configures
// (resolves_eager_weights: the palettizer, the pruner, the Quantizer with execution_mode:
// eager): the document root's registered calls, in graph order, each with its deciding entry
// (the TorchFunctionEagerHandler's rules are the same for all three); `full_precision` when
// no weight it reads gets a spec. resolve::resolve_config picks it for those configs.
Resolution resolve_eager_ops(const config::ConfigDocument& document, const index::Index& index,
                             const index::QueryEngine* engine = nullptr, int object = 0);

// A pruning spec with coreai-opt's defaults filled in (PruningSpec: target_sparsity 0.5,
// pruning_scheme unstructured, pruning_algo "default"); null stays null.
nlohmann::ordered_json filled_pruning_spec(const nlohmann::ordered_json& spec);

} // namespace opscope::resolve
