// `overridden` / `partly-overridden`: a module_name_configs or module_type_configs entry
// whose matched ops go, in coreai-opt's resolution (core/dialects/coreai/resolve), to other
// entries: all of them (warning) or some (information), naming the entries that take them; and
// `no-effect` (warning): its modules hold ops, but none the Quantizer annotates.
#pragma once

#include "opscope/features/diagnostics.h"
#include "opscope/resolve/resolve.h"

#include <vector>

namespace opscope::features {

// `resolution` must be resolve_quantizer(document, index).
std::vector<Diagnostic> overridden_diagnostics(const config::ConfigDocument& document,
                                               const index::Index& index,
                                               const resolve::Resolution& resolution);

} // namespace opscope::features
