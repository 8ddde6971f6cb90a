#include "opscope/index/validate.h"

#include <string_view>
#include <unordered_set>

#include <vector>

namespace opscope::index {
namespace {

// A name from the file, safe for a one-line message: control characters dropped, cut short.
std::string quoted(const std::string& name) {
  constexpr std::size_t kMaxShown = 60;
  std::string out = "\"";
  for (std::size_t i = 0; i < name.size() && i < kMaxShown; ++i)
    out += static_cast<unsigned char>(name[i]) < 0x20 ? '?' : name[i];
  if (name.size() > kMaxShown)
    out += "...";
  return out + "\"";
}

std::string module_label(const Index& index, std::size_t m) {
  return "module " + std::to_string(m) + " (" + quoted(index.modules[m].name) + ")";
}

std::string op_label(const Index& index, std::size_t o) {
  return "op " + std::to_string(o) + " (" + quoted(index.ops[o].name) + ")";
}

std::optional<std::string> check_tree(const Index& index) {
  const std::size_t count = index.modules.size();
  if (count == 0)
    return "no root module";
  if (index.modules[0].parent != -1)
    return "module 0 is the root and must have parent -1, not " +
           std::to_string(index.modules[0].parent);
  // Parents come before children (docs/INDEX_FORMAT.md): that alone rules out cycles, and
  // gives each module's depth in one pass.
  std::vector<int> depth(count, 0);
  for (std::size_t m = 1; m < count; ++m) {
    int parent = index.modules[m].parent;
    if (parent == -1)
      return module_label(index, m) + ": a second root (parent -1)";
    if (parent < 0 || static_cast<std::size_t>(parent) >= count)
      return module_label(index, m) + ": parent " + std::to_string(parent) + " is out of range (" +
             std::to_string(count) + " modules)";
    if (static_cast<std::size_t>(parent) >= m)
      return module_label(index, m) + ": parent " + std::to_string(parent) +
             " does not come before it (a cycle, or modules out of order)";
    depth[m] = depth[static_cast<std::size_t>(parent)] + 1;
    if (depth[m] > kMaxModuleDepth)
      return module_label(index, m) + ": nested more than " + std::to_string(kMaxModuleDepth) +
             " modules deep";
  }
  // Each module is listed exactly once, by its own parent: the tree the readers walk through
  // `children` is the one `parent` describes, with no module visited twice.
  std::vector<bool> listed(count, false);
  for (std::size_t m = 0; m < count; ++m) {
    for (int child : index.modules[m].children) {
      if (child <= 0 || static_cast<std::size_t>(child) >= count)
        return module_label(index, m) + ": child " + std::to_string(child) +
               " is out of range (modules 1 to " + std::to_string(count - 1) + ")";
      auto c = static_cast<std::size_t>(child);
      if (index.modules[c].parent != static_cast<int>(m))
        return module_label(index, m) + ": lists " + module_label(index, c) +
               " as a child, but its parent is " + std::to_string(index.modules[c].parent);
      if (listed[c])
        return module_label(index, m) + ": lists " + module_label(index, c) + " twice";
      listed[c] = true;
    }
  }
  for (std::size_t m = 1; m < count; ++m)
    if (!listed[m])
      return module_label(index, m) + ": missing from its parent's children";
  return std::nullopt;
}

std::optional<std::string> check_module_ops(const Index& index) {
  const std::size_t op_count = index.ops.size();
  std::vector<int> owner(op_count, -1);
  for (std::size_t m = 0; m < index.modules.size(); ++m) {
    const Module& module = index.modules[m];
    for (int op : module.ops) {
      if (op < 0 || static_cast<std::size_t>(op) >= op_count)
        return module_label(index, m) + ": op " + std::to_string(op) + " is out of range (" +
               std::to_string(op_count) + " ops)";
      auto o = static_cast<std::size_t>(op);
      if (owner[o] >= 0)
        return module_label(index, m) + ": " + op_label(index, o) + " already belongs to " +
               module_label(index, static_cast<std::size_t>(owner[o]));
      owner[o] = static_cast<int>(m);
    }
  }
  return std::nullopt;
}

} // namespace

// One name, one tensor: the lookups by name (edges, owners) would otherwise pick one silently.
std::optional<std::string> check_parameters(const Index& index) {
  std::unordered_set<std::string_view> names;
  for (const auto& p : index.parameters) {
    if (!names.insert(p.name).second)
      return "parameter " + quoted(p.name) + " is listed twice";
    for (const auto& alias : p.aliases)
      if (!names.insert(alias).second)
        return "parameter name " + quoted(alias) + " is listed twice";
  }
  return std::nullopt;
}

// The object table is walked as a graph (claims follow children): indices in range, the
// root first, every name once. A cycle is caught where it is walked (resolve bounds it).
std::optional<std::string> check_module_objects(const Index& index) {
  const std::size_t count = index.module_objects.size();
  if (count == 0)
    return std::nullopt;
  if (!index.module_objects.front().name.empty())
    return "module object 0 is " + quoted(index.module_objects.front().name) +
           ", not the root (\"\")";
  std::unordered_set<std::string_view> names;
  for (const auto& object : index.module_objects) {
    if (!names.insert(object.name).second)
      return "module name " + quoted(object.name) + " is listed twice in \"module_objects\"";
    for (const auto& alias : object.aliases)
      if (!names.insert(alias).second)
        return "module name " + quoted(alias) + " is listed twice in \"module_objects\"";
    for (int child : object.children)
      if (child <= 0 || static_cast<std::size_t>(child) >= count)
        return "module object " + quoted(object.name) + ": child " + std::to_string(child) +
               " is out of range (1 to " + std::to_string(count - 1) + ")";
  }
  return std::nullopt;
}

std::optional<std::string> find_structure_problem(const Index& index) {
  if (auto problem = check_tree(index))
    return problem;
  if (auto problem = check_module_ops(index))
    return problem;
  if (auto problem = check_module_objects(index))
    return problem;
  return check_parameters(index);
}

} // namespace opscope::index
