// Completion inside a config: real module names, module types, op names and op
// types where a pattern key is typed; config field names and values elsewhere.
#pragma once

#include "opscope/coreai/config/context.h"
#include "opscope/features/model.h"

#include <string>
#include <vector>

namespace opscope::features {

using dialects::CompletionItem;
using dialects::CompletionList;
using dialects::CompletionOptions;

// `model` may be null (not loaded yet): field names still complete; pattern
// keys return an empty, incomplete list.
CompletionList complete(const config::ConfigDocument& document, config::Position cursor,
                        const Model* model, const CompletionOptions& options = {});

} // namespace opscope::features
