// An archive of a model torch.export could not trace (python/opscope_export/untraced.py): its
// module table and `extra/opscope_untraced.json` (why, and the state tensors), no program.
// Read as an index with modules and parameters and no ops, the reason kept in its provenance.
// Private to core/inspect.
#pragma once

#include "opscope/index/index.h"
#include "opscope/inspect/archive.h"

namespace opscope::inspect {

inline constexpr const char* kUntracedRecord = "extra/opscope_untraced.json";

bool is_untraced(const Archive& archive);
// Throws ArchiveError naming the record when it is malformed.
index::Index build_untraced_index(const Archive& archive, index::Mode mode);

} // namespace opscope::inspect
