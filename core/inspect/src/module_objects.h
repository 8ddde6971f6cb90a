// The module objects of a model registered under several names (index::ModuleObject), from
// the export helper's record `extra/opscope_modules.json` (python/opscope_export/
// module_names.py). Private to core/inspect.
#pragma once

#include "opscope/index/index.h"
#include "opscope/inspect/archive.h"

#include <vector>

namespace opscope::inspect {

inline constexpr const char* kModuleObjectsRecord = "extra/opscope_modules.json";

// Empty when the archive has no such record (no module has a second name, or an archive
// written before aliases were recorded). Throws ArchiveError naming the record when it is
// malformed.
std::vector<index::ModuleObject> archive_module_objects(const Archive& archive);

} // namespace opscope::inspect
