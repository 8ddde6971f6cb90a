// The export helper's JSON records inside an archive (`extra/opscope_modules.json`,
// `extra/opscope_untraced.json`): read, parsed and checked for their format and version in one
// place, every failure an ArchiveError naming the record. Private to core/inspect.
#pragma once

#include "opscope/inspect/archive.h"

#include <nlohmann/json.hpp>

#include <string>

namespace opscope::inspect {

// "PATH: RECORD is malformed (WHAT); export the model again with this opscope".
[[noreturn]] void malformed_record(const Archive& archive, const char* record,
                                   const std::string& what);

// The record's JSON object, whose "format" is `format` and "version" 1.
nlohmann::json read_json_record(const Archive& archive, const char* record, const char* format);

} // namespace opscope::inspect
