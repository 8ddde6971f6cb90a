// The `parameters` part of `opscope explain` in eager mode (MagnitudePruner, KMeans
// palettizer, the Quantizer with execution_mode: eager): which spec each parameter gets
// from prepare() (opscope/resolve/eager_weights.h) and the entry whose spec dict gave it;
// for a tensor read from several modules (tied weights), every reader and the one that wins.
#pragma once

#include "paint.h"

#include "opscope/coreai/config/document.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace opscope::coreai_explain {

// A spec in a few words: "0.5 unstructured", "int4 per_channel", "4 bits"; "full precision"
// (the pruner: "dense") when there is none.
std::string spec_words(config::Compressor compressor, const nlohmann::ordered_json& spec);

// How explain's tables name a deciding entry: "module_name_configs > lm_head  :7" (its path
// below the root key, and its line), or "(default global_config)".
std::string entry_text(const config::ConfigDocument& doc, const resolve::Decider& decider);

// [{parameter, names, module, entry: {path, line} | null, spec_table, spec_key, spec | null,
//   read_by?: [{op, module, entry}]}] for every parameter a registered call or a
// module_state_spec reaches, Index::parameters order. `names`: every name of the tensor
// (tied weights have several; one spec and one compressor for all). `read_by`: only for a
// tensor read from more than one module. The pruner's spec has coreai-opt's defaults filled
// in; the others' are as written. null: the parameter stays in full precision (dense); with
// `not_applied` (why) when the spec written does not fit its shape and prepare() disables it.
nlohmann::ordered_json eager_parameters_json(const config::ConfigDocument& document,
                                             const index::Index& index);

// The same as a table on stdout (pruner: parameter, target sparsity and scheme, deciding
// entry), then one `tied:` line per tensor read from several modules.
void print_eager_parameters(const config::ConfigDocument& document, const index::Index& index,
                            const Paint& paint, std::ostream& out);

} // namespace opscope::coreai_explain
