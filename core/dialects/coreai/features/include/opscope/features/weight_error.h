// The per-layer weight error in the editor (issue 28): a code lens on the root key naming the
// three weights the config's quantization damages most, and a hover paragraph on an entry with
// the worst and the median of the weights it decides. Read from the host's measurement
// (resolve/weight_error.h, run by the host); nothing is measured here.
#pragma once

#include "opscope/features/model.h"
#include "opscope/features/projected_size.h"

#include <optional>
#include <string>

namespace opscope::features {

// "weight error, worst: layer1.0.conv1.weight 31.05 dB, ... SQNR" above the root key; "weight
// error: computing…" before the first measurement, "(updating…)" after the last one's numbers
// while an edit is measured. Nothing when the config quantizes no weight, the
// model has no weights (a weightless archive), or the measurement failed (the entries' hover
// says why).
std::optional<CodeLens> weight_error_lens(const config::ConfigDocument& document,
                                          const Model* model);

// The hover paragraph of entry `key` (ConfigDocument::keys): the worst and the median weight it
// decides, with SQNR and relative error; "computing…" while this revision is measured; one line
// when the model has no weights. Nothing when the entry decides no quantized weight.
std::optional<std::string> entry_weight_error_text(const config::ConfigDocument& document,
                                                   const Model* model, int key);

} // namespace opscope::features
