// torch.fx's node naming (torch/fx/graph.py), ported: the names FX generates for the nodes the
// unlifted graph gains and the renaming every node goes through when ep.module() deep-copies the
// graph must come out exactly as torch makes them, since coreai-opt matches configs against them.
// tests/unit/inspect/fx_namespace_test.cpp checks them against names torch produced.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace opscope::inspect {

// torch.fx's _Namespace.create_name, for the nodes whose names FX generates
// (copy_ nodes, list getitems, `_unused` outputs, get_attr nodes) and for the
// renaming every node goes through when ep.module() deep-copies the graph.
class FxNamespace {
public:
  // A name not used yet in this namespace, made from `candidate` as FX makes it.
  std::string create(std::string candidate);

private:
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, long> base_count_;
};

// Whether FX refuses `name` for a node (torch.fx.graph._illegal_names).
bool is_illegal_name(std::string_view name);

// Graph::_target_to_str for an OpOverload: "<op>.<overload>" snake-cased.
std::string target_to_str(const std::string& target);

} // namespace opscope::inspect
