// The llm-compressor dialect behind the engine's Dialect interface (opscope/dialects/dialect.h):
// the one object engine/workspace/src/dialects.cpp registers.
#pragma once

#include "opscope/dialects/dialect.h"

namespace opscope::dialects::llmcompressor {

const Dialect& dialect();

} // namespace opscope::dialects::llmcompressor
