// Which weight spec each parameter gets from the graph-mode Quantizer's prepare(), i.e. which
// weight fake-quants it inserts, from the ops' resolution (resolve_quantizer). Ported from
// coreai-opt 0.4.0, quantization/_graph/:
//  - _provisional_qspec_generation.py (_populate_input_slots): only a match's primary op (the
//    registered op it is anchored on: the conv of conv -> bn -> relu) takes its config's state
//    specs; each floating state input of more than one element gets the op_state_spec key
//    naming it last (by any local name any module gives the tensor), else "*"; no such key:
//    no opinion (no fake-quant from that reader);
//  - _qspec_constraint_generation.py (_shared_state_constraints) and _qspec_constraints.py
//    (ShareObserverInstance, priority_decides_decline): a tensor several primaries read is one
//    fake-quant with the spec, or the decline, of the reader annotated first (OpDecision::rank)
//    among those with an opinion;
//  - _annotation_utils.py (annotate_module_level_specs): afterwards a module_state_spec naming
//    the tensor, from the first of its owners matched directly by an entry (name entries, then
//    type entries, then global; within a level the claim order), replaces it for every reader.
// Pure: reads the parsed document, its values, the index and the resolution.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/index/index.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/resolve.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace opscope::resolve {

// One WeightDecision per Index::parameters entry, same order. `readers`: the ops whose inputs
// the tensor's fake-quant feeds (its graph readers with an opinion; every reader under a
// module_state_spec). `op`: the reader that decided (-1 for a module_state_spec).
// `resolution` is resolve_quantizer() of the same document and index.
std::vector<WeightDecision> resolve_graph_weights(const config::ConfigDocument& document,
                                                  const nlohmann::ordered_json& values,
                                                  const index::Index& index,
                                                  const Resolution& resolution);

// The module type whose default weight axes (quantization/_axis_defaults.py) apply to a
// tensor the graph quantizes: graph mode looks them up by the op consuming the fake-quant
// (ATEN_OP_TO_MODULE_TYPE: conv2d -> torch.nn.modules.conv.Conv2d, linear, embedding, ...).
// Empty when no reader's op has defaults (prepare() then raises on a granularity without an
// axis).
std::string graph_axis_module_type(const index::Index& index, const WeightDecision& weight);

} // namespace opscope::resolve
