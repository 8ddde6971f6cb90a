// Graph mode: the Index coreai-opt's ModelInspector(execution_mode="graph")
// builds (coreai_opt/inspection/_graph_mode.py), from a .pt2 archive.
#pragma once

#include "opscope/index/index.h"
#include "opscope/inspect/archive.h"

namespace opscope::inspect {

// Throws ArchiveError if the serialized graph is malformed.
index::Index build_graph_index(const Archive& archive);

} // namespace opscope::inspect
