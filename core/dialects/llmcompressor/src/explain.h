// `opscope explain` of llm-compressor modifiers: for every module a modifier reaches, the
// scheme compressed-tensors applies (weight bits, strategy, group size, activations) and the
// group and target deciding it, or the ignore entry that leaves it out.
#pragma once

#include "opscope/dialects/llmcompressor/config.h"
#include "opscope/index/index.h"

#include <ostream>
#include <string>
#include <vector>

namespace opscope::dialects::llmcompressor {

// Writes the explanation to `out` (JSON with `json`); returns the exit code: non-zero when
// llm-compressor would refuse a modifier on this model (the reason on `err`).
int explain(const std::string& config_path, const std::vector<Modifier>& modifiers,
            const index::Index& model, bool json, std::ostream& out, std::ostream& err);

} // namespace opscope::dialects::llmcompressor
