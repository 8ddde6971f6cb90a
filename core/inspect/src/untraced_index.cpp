#include "untraced_index.h"

#include "json_record.h"
#include "module_objects.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace opscope::inspect {
namespace {

using json = nlohmann::json;

[[noreturn]] void malformed(const Archive& archive, const std::string& what) {
  malformed_record(archive, kUntracedRecord, what);
}

index::Parameter state_tensor(const Archive& archive, const json& entry) {
  if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
    malformed(archive, "a state tensor without a string \"name\"");
  index::Parameter p;
  p.name = entry["name"].get<std::string>();
  if (auto shape = entry.find("shape"); shape != entry.end()) {
    if (!shape->is_array())
      malformed(archive, "the shape of " + p.name + " is not a list");
    for (const json& size : *shape) {
      if (!size.is_number_integer() || size.get<long long>() < 0)
        malformed(archive, "a size of " + p.name + " is not a count");
      p.shape.push_back(size.get<std::int64_t>());
    }
  }
  if (auto dtype = entry.find("dtype"); dtype != entry.end() && dtype->is_string())
    p.dtype = dtype->get<std::string>();
  if (auto buffer = entry.find("buffer"); buffer != entry.end() && buffer->is_boolean())
    p.buffer = buffer->get<bool>();
  if (auto aliases = entry.find("aliases"); aliases != entry.end() && aliases->is_array())
    for (const json& alias : *aliases)
      if (alias.is_string())
        p.aliases.push_back(alias.get<std::string>());
  return p;
}

// named_modules() as the module tree: an object's first parent in named_modules() order is
// its parent (a shared module is one object), so parents precede children.
void add_modules(index::Index& index) {
  const auto& objects = index.module_objects;
  std::vector<int> parent(objects.size(), -1);
  for (std::size_t i = 0; i < objects.size(); ++i)
    for (int child : objects[i].children)
      if (child > static_cast<int>(i) && parent[static_cast<std::size_t>(child)] < 0)
        parent[static_cast<std::size_t>(child)] = static_cast<int>(i);
  for (std::size_t i = 0; i < objects.size(); ++i) {
    index::Module m;
    m.name = objects[i].name;
    m.type = objects[i].type;
    m.parent = i == 0 ? -1 : std::max(parent[i], 0);
    index.modules.push_back(std::move(m));
    if (i > 0)
      index.modules[static_cast<std::size_t>(index.modules.back().parent)].children.push_back(
          static_cast<int>(i));
  }
}

} // namespace

bool is_untraced(const Archive& archive) {
  return !archive.document && archive.records && archive.records->has(kUntracedRecord);
}

index::Index build_untraced_index(const Archive& archive, index::Mode mode) {
  json doc = read_json_record(archive, kUntracedRecord, "opscope-untraced");
  if (!doc.contains("reason") || !doc["reason"].is_string())
    malformed(archive, "no \"reason\"");

  index::Index index;
  index.mode = mode;
  index.provenance.archive = archive.path;
  index.provenance.archive_hash = archive.content_hash;
  index.provenance.untraced = doc["reason"].get<std::string>();
  if (index.provenance.untraced.empty())
    index.provenance.untraced = "torch.export could not trace it";
  index.module_objects = archive_module_objects(archive);
  if (index.module_objects.empty() || !index.module_objects.front().name.empty())
    malformed(archive, "no module table beside it, or one without the root first");
  add_modules(index);
  if (auto state = doc.find("state"); state != doc.end()) {
    if (!state->is_array())
      malformed(archive, "\"state\" is not a list");
    for (const json& entry : *state)
      index.parameters.push_back(state_tensor(archive, entry));
  }
  index.rebuild_lookups();
  require_indexable(index, archive.path);
  return index;
}

} // namespace opscope::inspect
