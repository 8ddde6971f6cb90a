// Completion and hover from coreai-opt's models (core/dialects/coreai/schema): keys at every level
// of a config, specs included (only those not yet written), values (enums, literals, booleans,
// registered names, `null` where it disables), each with coreai-opt's documentation; hover on
// a key or value shows that documentation and the default that applies when it is left out.
#pragma once

#include "opscope/features/completion.h"
#include "opscope/features/hover.h"
#include "opscope/schema/schema.h"

#include <optional>
#include <string_view>

namespace opscope::features {

// Empty when the cursor is not where coreai-opt's models say what goes.
CompletionList schema_complete(const config::ConfigDocument& document, config::Position cursor,
                               const schema::Schema& schema, std::string_view expected_root = {});

std::optional<Hover> schema_hover(const config::ConfigDocument& document, config::Position cursor,
                                  const schema::Schema& schema);

} // namespace opscope::features
