// Hover on a pattern key: what it matches in the model, where, and how it
// ranks against the other tables.
#pragma once

#include "opscope/features/model.h"

#include <optional>
#include <string>

namespace opscope::features {

using dialects::Hover;

struct HoverOptions {
  std::size_t max_listed = 10; // matches listed before "and N more"
};

// Nothing when the cursor is not on a pattern key. Without a model, says so.
std::optional<Hover> hover(const config::ConfigDocument& document, config::Position cursor,
                           const Model* model, const HoverOptions& options = {});

} // namespace opscope::features
