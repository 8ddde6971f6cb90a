// Go to definition on a pattern key: where in the model's Python source the
// ops it matches are called.
#pragma once

#include "opscope/features/model.h"

#include <vector>

namespace opscope::features {

// Distinct source lines of the matched ops, in graph order; empty when the
// cursor is not on a key, nothing matches, or the index has no source frames.
std::vector<SourceLocation> definition(const config::ConfigDocument& document,
                                       config::Position cursor, const Model& model,
                                       std::size_t max_locations = 100);

} // namespace opscope::features
