// Which coreai-opt schema checks a config: the dump for the coreai-opt version installed
// next to the project's interpreter (from the cache, keyed by version), else the built-in
// copy. Finding the version reads the venv's dist-info folder; nothing is executed.
#pragma once

#include "opscope/project/project.h"
#include "opscope/schema/schema.h"

#include <memory>
#include <optional>
#include <string>

namespace opscope::workspace {

// The version of coreai-opt installed for `python` (…/bin/python of a venv), if found.
std::optional<std::string> installed_coreai_opt(const std::string& python);

// Where the dump for `version` is cached: <cache>/schema/coreai-opt-<version>.json.
std::string schema_cache_path(const std::string& version);

std::shared_ptr<const schema::Schema> schema_for(const project::Resolution& resolution);

} // namespace opscope::workspace
