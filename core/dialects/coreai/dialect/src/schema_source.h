// Which coreai-opt schema checks a config: the dump for the coreai-opt version installed
// next to the project's interpreter (from the cache, keyed by version), else the built-in
// copy. Finding the version reads the dist-info folders where the interpreter finds packages;
// nothing is executed.
#pragma once

#include "opscope/dialects/dialect.h"
#include "opscope/schema/schema.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::coreai {

// Where `python` finds installed packages, from its path alone (nothing runs): a venv's own
// site-packages; else the user's and its prefix's site- and dist-packages, in Python's order.
// A command name (`python3`) is found on PATH; a symlink is followed when its own folder says
// nothing.
std::vector<std::filesystem::path> site_folders(const std::string& python);

// The version of coreai-opt installed for `python`, if found in site_folders.
std::optional<std::string> installed_coreai_opt(const std::string& python);

// Where the dump for `version` is cached: <cache>/schema/coreai-opt-<version>.json.
std::string schema_cache_path(const std::string& version);

// The schema a config is checked against, and the version whose dump is still missing.
struct SchemaChoice {
  std::shared_ptr<const schema::Schema> schema;
  // The venv's coreai-opt differs from the built-in copy's and has no dump in the cache yet.
  std::optional<std::string> missing_version;
};
SchemaChoice choose_schema(const std::string& python);

// The dump of coreai-opt `version` for the host to make with `python`: where it goes, and the
// check of what the helper wrote (a schema dump of that very version).
SchemaDump schema_dump(const std::string& python, const std::string& version);

} // namespace opscope::dialects::coreai
