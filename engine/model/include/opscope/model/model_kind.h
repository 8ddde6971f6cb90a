// What a model argument names: an archive, an index file or a Python target. One rule for
// the command line, the project file and the editor settings:
//   1. a path that exists as a regular file is what its content is (a zip is an archive,
//      an opscope index is an index file), whatever its name;
//   2. otherwise `where:factory` (both parts non-empty) is a Python target;
//   3. otherwise the name decides (*.json: an index file, anything else: an archive), so a
//      project can name a file that a build has not produced yet.
#pragma once

#include <optional>
#include <string>

namespace opscope::model {

enum class ModelKind { Archive, IndexFile, PythonTarget };

// The rule above. Never throws; a file that is neither kind gets its name's kind (the
// loader then says what is wrong with it).
ModelKind model_kind(const std::string& model);

// Rule 1 alone: the kind `path`'s content shows, or nothing when it is not a readable
// regular file of either kind.
std::optional<ModelKind> kind_of_file(const std::string& path);

// Rule 2 alone.
bool looks_like_python_target(const std::string& model);

} // namespace opscope::model
