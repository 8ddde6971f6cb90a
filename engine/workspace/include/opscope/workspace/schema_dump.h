// The schema dump of the library version a project installs: made by the export helper's `schema`
// command with the project's interpreter (so only with the consent its model's export has),
// checked, then moved into the cache where every later check finds it. The hosts run the
// command: the editor in the background, `check` in-line.
#pragma once

#include "opscope/dialects/dialect.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace opscope::workspace {

using dialects::SchemaDump; // opscope/dialects/dialect.h

// Importing the library imports torch (seconds); a dump that takes longer is stuck.
inline constexpr std::chrono::seconds kSchemaDumpTimeout{120};

// After the helper ended well: reads what it wrote at temporary() (bounded), checks that it is
// a dump of `version` and moves it to `path`. On failure, removes it and returns why (one
// clause, for schema_dump_failure).
std::optional<std::string> install_schema_dump(const SchemaDump& dump);

// "opscope cannot make the schema of LIBRARY V (PATH) with PYTHON: WHY; ..." with what serves
// meanwhile and the command that makes it by hand (`by_hand`: the helper's, writing to PATH).
std::string schema_dump_failure(const SchemaDump& dump, const std::string& why,
                                const std::vector<std::string>& by_hand);

} // namespace opscope::workspace
