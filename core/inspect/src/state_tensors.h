// The model's parameters and buffers (index::Parameter) as each archive source records them.
// Private to core/inspect.
#pragma once

#include "opscope/index/index.h"
#include "opscope/inspect/archive.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace opscope::inspect {

// Graph mode: the graph signature's parameter and buffer inputs (their order is
// named_parameters(remove_duplicate=False), then named_buffers), shapes and dtypes from the
// graph's tensor metadata; names stored as one weight file (data/weights/
// model_weights_config.json) are one tied tensor. Throws ArchiveError on a malformed entry.
std::vector<index::Parameter> graph_parameters(const Archive& archive);

// Eager mode: the eager record's "parameters" list (absent in records written before it
// existed: none). Throws EagerRecordError naming `origin` on a malformed entry.
std::vector<index::Parameter> record_parameters(const nlohmann::json& record,
                                                const std::string& origin);

// torch's dtype name for a serialized ScalarType (torch/_export/serde/schema.py); "" if unknown.
std::string dtype_name(long long scalar_type);

} // namespace opscope::inspect
