// Diagnostics for every key and value coreai-opt's own models refuse (core/dialects/coreai/schema),
// with a code per kind and quick fixes for misspellings. No model needed.
#pragma once

#include "opscope/features/diagnostics.h"
#include "opscope/schema/schema.h"

#include <string_view>
#include <vector>

namespace opscope::features {

// `expected_root`: see schema::check (the project's compressor, for a config naming none).
std::vector<Diagnostic> schema_diagnostics(const config::ConfigDocument& document,
                                           const schema::Schema& schema,
                                           std::string_view expected_root = {});

} // namespace opscope::features
