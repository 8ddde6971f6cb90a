// A config's per-layer weight error (issue 28): what its fake quantization does to each weight
// it quantizes, measured on the real weights of the model by the LibTorch worker
// `opscope-weights` (core/weights) as SQNR in dB and relative error |w - q(w)| / |w|. Which
// weights and how: quantized_weights. The host runs the worker (dialects::WeightsWorker): for
// `opscope explain`, and for the editor off its request thread (0.4 s to a few seconds). A
// model with no weights to read gets the report's `unavailable` once instead.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/dialects/workers.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"
#include "opscope/resolve/weight_error_report.h"
#include "opscope/resolve/weight_quantization.h"

#include <chrono>
#include <string>
#include <vector>

namespace opscope::resolve {

// The worker's request for `weights` (JSON text): what it measures, so two equal requests on
// the same model give the same report (the editor's cache key).
std::string weight_error_request(const index::Index& index,
                                 const std::vector<WeightQuantization>& weights);

// Measures `weights` (quantized_weights of a config on `index`) on `model`, what the model
// argument names (an archive path, an index file, a target), or a Hugging Face checkpoint (a
// folder or .safetensors file). Not applicable when `weights` is empty; never throws: a failure
// is `unavailable`.
WeightErrorReport
measure_weight_error(const std::string& model, const index::Index& index,
                     std::vector<WeightQuantization> weights, const dialects::WeightsWorker& worker,
                     std::chrono::milliseconds timeout = dialects::kWeightsWorkerTimeout);

// measure_weight_error of the weights `document` quantizes (`resolution`: resolve_config() of
// the same document and index, if the caller has it).
WeightErrorReport weight_error(const config::ConfigDocument& document, const index::Index& index,
                               const std::string& model, const Resolution* resolution,
                               const dialects::WeightsWorker& worker);

} // namespace opscope::resolve
