// Which weight spec each parameter gets in eager mode (the eager Quantizer and the KMeans
// palettizer), ported from coreai-opt 0.4.0:
//  - _utils/eager_utils.py (_get_module_compression_components_and_priority): each module's
//    config from build_module_config_dict (resolve.h), a priority per module (module name
//    entries first, then module type, then global);
//  - _utils/insertion/torch_function/modes.py (__torch_function__,
//    _get_op_compression_components): every registered op the model runs, in order, picks
//    its op_state_spec: op_name_config (last full match) > op_type_config (last equal) > the
//    module config's own; an unregistered op is processed only under a module-level spec;
//  - state_spec_resolver.py: a tensor's module_state_spec (owners by priority) beats any
//    op_state_spec; a later visit from a strictly lower-priority module changes nothing;
//    a spec dict is matched by every local name the tensor has (get_last_matching_spec:
//    the last equal key, else "*"); only floating tensors of more than one element count.
//  - A tensor several modules read (tied weights: GPT-2's wte / lm_head) therefore gets the
//    spec of its highest-priority reader (ModuleDecision::priority: module name entries
//    before type entries before global; within a level the module claimed first), whatever
//    the call order; equal priorities (one module called twice): the last call.
//    register_all_states then registers that one compressor object on every owner
//    (modes.py): the tensor is compressed once, with one spec, whichever name reads it, and
//    bits_per_weight counts it once, under its first owner in named_modules().
// Pure: reads the parsed document, its values and the index.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace opscope::resolve {

// One parameter's outcome. `spec` is the resolved spec as written in the config (a JSON
// object, defaults not filled in), or null when the tensor stays in full precision.
struct WeightDecision {
  int parameter = 0;           // index into Index::parameters
  nlohmann::ordered_json spec; // null: full precision
  Decider decider;             // the module entry whose spec dict decided (Key/Global/Default)
  std::string spec_table;      // "op_state_spec" or "module_state_spec"; "" if never visited
  std::string spec_key;        // the matching key in that table ("weight", "*")
  int module = -1;             // the module (Index::modules) whose call or ownership decided
  int op = -1;                 // the op (Index::ops) whose call decided; -1: module_state_spec
  // Every registered call that read the tensor, in call order, with the entry its own
  // op_state_spec comes from (whether or not it won).
  struct Reader {
    int op = 0;           // Index::ops
    int module = 0;       // Index::modules
    Decider decider;      // the entry its op_state_spec comes from (an op entry, or the module's)
    Decider module_entry; // the module config that call runs under
  };
  std::vector<Reader> readers;

  // Read by calls in more than one module (a tied weight, or a module used twice under
  // different parents): one spec for all of them, from the highest-priority one.
  bool shared() const;
};

struct EagerWeights {
  std::vector<WeightDecision> parameters; // one per Index::parameters entry, same order
  std::vector<Unresolved> unresolved;
};

// Whether coreai-opt applies this config in eager mode on this index, so that
// resolve_eager_weights says what prepare() does: the palettizer and the pruner (eager only),
// the Quantizer with `execution_mode: eager`; the index must be an eager one.
bool resolves_eager_weights(const config::ConfigDocument& document, const index::Index& index);

// `values` is read_values() of the document. The compressor is the document's root
// (Quantizer, KMeansPalettizer or MagnitudePruner: the same handler, each with its specs).
// `modules`: resolve_quantizer() of the same document and index when the caller has it (the
// editor's per-revision resolution), so the module decisions are not computed twice.
EagerWeights resolve_eager_weights(const config::ConfigDocument& document,
                                   const nlohmann::ordered_json& values, const index::Index& index,
                                   const Resolution* modules = nullptr);

} // namespace opscope::resolve
