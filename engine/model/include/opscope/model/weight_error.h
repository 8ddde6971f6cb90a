// A config's per-layer weight error (issue 28): what its fake quantization does to each weight
// it quantizes, measured on the real weights of the model's .pt2 archive by the LibTorch worker
// `opscope-weights` (core/weights) as SQNR in dB and relative error |w - q(w)| / |w|. Which
// weights and how: resolve::quantized_weights. One place runs the worker for `opscope explain`
// and the editor (which calls it off its request thread: 0.4 s to a few seconds). A weightless
// archive (opscope export's default), an index file or a Python target has no weights to
// measure: the report says why once instead.
#pragma once

#include "opscope/config/document.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"
#include "opscope/resolve/weight_error_report.h"
#include "opscope/resolve/weight_quantization.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace opscope::model {

using resolve::WeightErrorReport;
using resolve::WeightErrorRow;

// A whole model's weights on 2 cores take seconds; a worker past this is stuck.
inline constexpr std::chrono::minutes kWeightErrorTimeout{10};

// The worker's request for `weights` (JSON text): what it measures, so two equal requests on
// the same archive give the same report (the editor's cache key).
std::string weight_error_request(const index::Index& index,
                                 const std::vector<resolve::WeightQuantization>& weights);

// Runs opscope-weights on `model` (an archive or a checkpoint) with `request_text`
// (weight_error_request's): its output, a header line then one JSON answer per tensor. Throws
// with a message that says what to do when the worker is missing, fails, crashes or times out.
// The one place the worker is started (`explain`, the editor, `propose`).
std::string run_weights_worker(const std::string& model, const std::string& request_text,
                               std::chrono::milliseconds timeout);

// Measures `weights` (resolve::quantized_weights of a config on `index`) on `model`, what the
// model argument names (an archive path, an index file, a target), or a Hugging Face
// checkpoint (a folder or .safetensors file: project::ModelSpec::weights, when set). Not applicable
// when `weights` is empty; never throws: a failure is `unavailable`.
WeightErrorReport measure_weight_error(const std::string& model, const index::Index& index,
                                       std::vector<resolve::WeightQuantization> weights,
                                       std::chrono::milliseconds timeout = kWeightErrorTimeout);

// measure_weight_error of the weights `document` quantizes (`resolution`: resolve_config() of
// the same document and index, if the caller has it).
WeightErrorReport weight_error(const config::ConfigDocument& document, const index::Index& index,
                               const std::string& model, const resolve::Resolution* resolution);

} // namespace opscope::model
