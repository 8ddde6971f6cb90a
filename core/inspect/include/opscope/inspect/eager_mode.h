// Eager mode: the Index coreai-opt's ModelInspector(execution_mode="eager")
// builds, from the record the export helper stores in the archive
// (docs/EAGER_MODE.md); implemented by src/eager_*.cpp.
#pragma once

#include "opscope/index/index.h"
#include "opscope/inspect/archive.h"

namespace opscope::inspect {

// Throws ArchiveError for archives eager mode cannot use.
index::Index build_eager_index(const Archive& archive);

} // namespace opscope::inspect
