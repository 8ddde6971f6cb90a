// `opscope explain`'s weight error (issue 28): what the Quantizer's fake quantization does to
// each weight it quantizes, measured on the real weights of the model's .pt2 archive by the
// LibTorch worker `opscope-weights` (core/weights) as SQNR in dB and relative error
// |w - q(w)| / |w|. Which weights and how: resolve::quantized_weights. A weightless archive
// (opscope export's default), an index file or a Python target has no weights to measure:
// the report says so once instead.
#pragma once

#include "paint.h"

#include "opscope/config/document.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"
#include "opscope/resolve/weight_quantization.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace opscope::check {

struct WeightErrorRow {
  resolve::WeightQuantization quantization; // its parameter, dtype, block, ...
  bool measured = false;
  std::optional<double> sqnr_db; // nothing when the weight comes back unchanged (no error)
  double relative_error = 0;
  std::string not_measured; // why, when !measured
};

struct WeightErrorReport {
  bool applies = false;             // a Quantizer config that quantizes some weight of this model
  std::string unavailable;          // why nothing was measured ("" when rows hold the numbers)
  std::vector<WeightErrorRow> rows; // Index::parameters order
  std::vector<int> worst;           // up to three rows, lowest SQNR first
};

// `model` is what the model argument names (an archive path, an index file, a target).
WeightErrorReport weight_error(const config::ConfigDocument& document, const index::Index& index,
                               const std::string& model, const resolve::Resolution* resolution);

// {"parameters": [{parameter, dtype, qscheme, qformulation, block_size, sqnr_db (null: no
// error), relative_error} | {parameter, not_measured}], "worst": [parameter, ...]}, or
// {"unavailable": why}. Call only when report.applies.
nlohmann::ordered_json weight_error_json(const WeightErrorReport& report,
                                         const index::Index& index);

// The table (parameter, quantization, SQNR dB, relative error) and a `worst:` line naming
// the three worst layers, or one `weight error: not measured: why` line.
void print_weight_error(const WeightErrorReport& report, const index::Index& index,
                        const Paint& paint);

} // namespace opscope::check
