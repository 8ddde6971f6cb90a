// A module-name key against named_modules(), as coreai-opt's build_module_config_dict tests it:
// every name of every module object, whether or not forward() calls it (a ModuleList such as
// `model.layers`, a module registered under two names). The tree of Index::modules holds only
// the calls, so these map objects to the calls a claim on them reaches.
#pragma once

#include "opscope/index/query.h"

#include <vector>

namespace opscope::index {

// Positions in Index::named_modules() of the objects a ModuleName or ModuleType query selects
// itself (not their children), ascending. Empty if the query is unusable.
std::vector<int> objects_matching(const QueryEngine& engine, const Query& query);

// objects_matching() of each query (null entries: empty), the tree's names matched in one pass
// for all of them (QueryEngine::match_modules_each).
std::vector<std::vector<int>> objects_matching_each(const QueryEngine& engine,
                                                    const std::vector<const Query*>& queries);

// The modules of the tree a claim on `objects` reaches first, ascending: each object's own
// calls, or where it has none (a container), those of its nearest called descendants. A claim
// reaches everything below these through the tree.
std::vector<int> modules_reached(const Index& index, const std::vector<int>& objects);

} // namespace opscope::index
