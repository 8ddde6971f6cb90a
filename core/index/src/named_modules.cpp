#include "opscope/index/named_modules.h"

#include <algorithm>

namespace opscope::index {
namespace {

void sort_unique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The objects of the tree modules `modules` plus those whose other names `query` matches.
std::vector<int> with_names_outside_tree(const Index& index, const std::vector<int>& modules,
                                         const Query& query) {
  std::vector<int> objects;
  for (int m : modules)
    if (int o = index.module_object(static_cast<std::size_t>(m)); o >= 0)
      objects.push_back(o);
  for (const auto& [name, object] : index.names_outside_tree())
    if (query.matches(name))
      objects.push_back(object);
  sort_unique(objects);
  return objects;
}

} // namespace

std::vector<int> objects_matching(const QueryEngine& engine, const Query& query) {
  const Index& index = engine.index();
  if (!query.usable())
    return {};
  if (query.kind() == Table::ModuleType) {
    std::vector<int> objects;
    const std::vector<ModuleObject>& all = index.named_modules();
    for (std::size_t o = 0; o < all.size(); ++o)
      if (all[o].type == query.text())
        objects.push_back(static_cast<int>(o));
    return objects;
  }
  return with_names_outside_tree(index, engine.match_modules(query), query);
}

std::vector<std::vector<int>> objects_matching_each(const QueryEngine& engine,
                                                    const std::vector<const Query*>& queries) {
  std::vector<std::vector<int>> in_tree = engine.match_modules_each(queries);
  std::vector<std::vector<int>> out(queries.size());
  for (std::size_t i = 0; i < queries.size(); ++i)
    if (queries[i] && queries[i]->usable())
      out[i] = queries[i]->kind() == Table::ModuleName
                   ? with_names_outside_tree(engine.index(), in_tree[i], *queries[i])
                   : objects_matching(engine, *queries[i]);
  return out;
}

std::vector<int> modules_reached(const Index& index, const std::vector<int>& objects) {
  const std::vector<ModuleObject>& all = index.named_modules();
  std::vector<int> reached;
  if (std::all_of(objects.begin(), objects.end(),
                  [&](int o) { return !index.calls_of(o).empty(); })) {
    for (int o : objects)
      reached.insert(reached.end(), index.calls_of(o).begin(), index.calls_of(o).end());
    sort_unique(reached);
    return reached; // the common case, without the walk's bookkeeping
  }
  std::vector<bool> seen(all.size(), false);
  std::vector<int> stack(objects.rbegin(), objects.rend());
  while (!stack.empty()) {
    auto o = static_cast<std::size_t>(stack.back());
    stack.pop_back();
    if (o >= all.size() || seen[o])
      continue; // a malformed table may list a child twice or loop
    seen[o] = true;
    const std::vector<int>& calls = index.calls_of(static_cast<int>(o));
    if (!calls.empty()) {
      reached.insert(reached.end(), calls.begin(), calls.end());
      continue;
    }
    for (int child : all[o].children)
      stack.push_back(child);
  }
  sort_unique(reached);
  return reached;
}

} // namespace opscope::index
