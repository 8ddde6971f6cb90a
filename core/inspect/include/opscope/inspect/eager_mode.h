// Eager mode: the Index coreai-opt's ModelInspector(execution_mode="eager")
// builds. Implemented by src/eager_*.cpp (engineer E); until then
// src/eager_unavailable.cpp throws EagerUnavailable.
#pragma once

#include "opscope/index/index.h"
#include "opscope/inspect/archive.h"

#include <stdexcept>

namespace opscope::inspect {

// Eager mode is not built into this opscope-inspect.
class EagerUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Throws ArchiveError for archives eager mode cannot use.
index::Index build_eager_index(const Archive& archive);

} // namespace opscope::inspect
