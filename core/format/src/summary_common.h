// What the text and JSON summaries share: which ops are shown, boundary notation.
#pragma once

#include "opscope/index/index.h"

#include <string>
#include <vector>

namespace opscope::format::detail {

// Ops a module owns directly that the tree shows: calls registered by the compressor.
std::vector<int> visible_ops(const index::Index& index, const index::Module& module,
                             index::Compressor compressor);

// coreai-opt prints "(no compressible operations found)" when the root has neither shown
// ops nor submodules (submodules are kept even when all their ops are filtered out).
bool is_empty_summary(const index::Index& index, index::Compressor compressor);

// "{0: [linear[0]], 1: [add[1], mul[0]]}" (sorted by spec index).
std::string format_module_inputs(const index::Module& module);
// "{0: linear_1[0]}" (sorted by spec index).
std::string format_module_outputs(const index::Module& module);

} // namespace opscope::format::detail
