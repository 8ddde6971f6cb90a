// The dialects the engine asks about a file: every library whose configs opscope reads
// (opscope/dialects/dialect.h). The list is in dialects.cpp, one line per dialect: the only
// engine file naming one.
#pragma once

#include "opscope/dialects/dialect.h"

#include <span>
#include <string>

namespace opscope::workspace {

std::span<const dialects::Dialect* const> registered_dialects();
// The first registered dialect that recognises the file (the last, coreai-opt's, reads any).
const dialects::Dialect& dialect_for(const std::string& path, const std::string& text);

} // namespace opscope::workspace
