// `opscope explain`'s weight error (issue 28): the table and JSON of what the Quantizer's fake
// quantization does to each weight it quantizes (model::weight_error measures it).
#pragma once

#include "paint.h"

#include "opscope/index/index.h"
#include "opscope/model/weight_error.h"

#include <nlohmann/json.hpp>

namespace opscope::check {

// The report itself and the worker that measures it live in engine/model (weight_error.h),
// shared with the editor's hover and code lens; here is how `explain` prints it.
using opscope::model::weight_error;
using opscope::model::WeightErrorReport;
using opscope::model::WeightErrorRow;

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
