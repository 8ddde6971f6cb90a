// The dialects the engine asks about a file that has no coreai-opt root key: every library
// whose configs opscope reads besides coreai-opt (opscope/dialects/dialect.h). The list is in
// dialects.cpp, one line per dialect: the only engine or server file naming one.
#pragma once

#include "opscope/dialects/dialect.h"

#include <span>
#include <string>

namespace opscope::workspace {

std::span<const dialects::Dialect* const> registered_dialects();
// The first registered dialect that recognises the file, else null (coreai-opt's, or no config).
const dialects::Dialect* dialect_for(const std::string& path, const std::string& text);

} // namespace opscope::workspace
