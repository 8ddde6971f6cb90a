// The weights the MagnitudePruner or the KMeansPalettizer compresses (eager mode, the only one
// either has), as weight_quantization.h's rows with `pruning` or `palettization` set: each
// parameter's spec from resolve_eager_weights (the same TorchFunctionEagerHandler rules as
// the eager Quantizer), defaults filled as PruningSpec / PalettizationSpec fill them, and for
// the palettizer the k-means settings of the module config its call ran under
// (enable_fast_kmeans_mode, rounding_precision: _spec_to_partial's module kwargs).
#pragma once

#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/weight_quantization.h"

#include <nlohmann/json.hpp>

namespace opscope::resolve::detail {

// `weights` are resolve_eager_weights' parameters for `document` (quantized_weights resolves
// them once for every compressor).
std::vector<WeightQuantization>
pruned_or_palettized_weights(const config::ConfigDocument& document,
                             const nlohmann::ordered_json& values, const index::Index& index,
                             const Resolution& modules, const std::vector<WeightDecision>& weights);

} // namespace opscope::resolve::detail
