// `opscope explain`'s weight error (issue 28): the table and JSON of what the Quantizer's fake
// quantization does to each weight it quantizes (resolve::weight_error measures it).
#pragma once

#include "paint.h"

#include "opscope/index/index.h"
#include "opscope/resolve/weight_error.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace opscope::coreai_explain {

// The report and its measurement live beside the resolution (resolve/weight_error.h),
// shared with the editor's hover and code lens; here is how `explain` prints it.
using opscope::resolve::weight_error;
using opscope::resolve::WeightErrorReport;
using opscope::resolve::WeightErrorRow;

// {"parameters": [{parameter, dtype, qscheme, qformulation, block_size, sqnr_db (null: no
// error), relative_error} | {parameter, not_measured}], "worst": [parameter, ...]}, or
// {"unavailable": why}. Call only when report.applies.
nlohmann::ordered_json weight_error_json(const WeightErrorReport& report,
                                         const index::Index& index);

// The table (parameter, quantization, SQNR dB, relative error) and a `worst:` line naming
// the three worst layers, or one `weight error: not measured: why` line.
void print_weight_error(const WeightErrorReport& report, const index::Index& index,
                        const Paint& paint, std::ostream& out);

} // namespace opscope::coreai_explain
