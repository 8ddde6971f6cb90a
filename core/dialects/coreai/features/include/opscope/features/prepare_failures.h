// `prepare-raises` (error): an entry whose spec the config loader accepts but coreai-opt's
// prepare() cannot apply to this model, so the run fails before calibration starts. Today: the
// Quantizer's weight granularity that needs an axis (per_channel, per_block with one block
// size) on weights whose module type has no default axis (LlamaRMSNorm, LayerNorm, ...);
// quantization/_axis_defaults.py raises ValueError naming them.
#pragma once

#include "opscope/features/diagnostics.h"
#include "opscope/resolve/eager_weights.h"

#include <vector>

namespace opscope::features {

// `weights` must be resolve_eager_weights(document, ...) on `index` (eager mode).
std::vector<Diagnostic> prepare_failures(const config::ConfigDocument& document,
                                         const index::Index& index,
                                         const resolve::EagerWeights& weights);

} // namespace opscope::features
