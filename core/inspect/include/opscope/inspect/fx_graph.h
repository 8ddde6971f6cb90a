// The FX graph coreai-opt walks, `ep.module(check_guards=False)` (the UNLIFTED
// GraphModule), rebuilt from the lifted graph serialized in a .pt2 archive:
// parameters, buffers and constants become `get_attr` nodes named by their FQN
// where their placeholders were, multi-output ops get their `getitem` nodes,
// mutated buffers and inputs get `copy_` nodes before the output, exactly as
// torch/_export/serde/serialize.py and torch/export/_unlift.py build it.
#pragma once

#include "opscope/inspect/archive.h"

#include <string>
#include <string_view>
#include <vector>

namespace opscope::inspect {

enum class FxOp { Placeholder, GetAttr, CallFunction, Output };

struct FxNode {
  std::string name; // FX node name
  FxOp op = FxOp::CallFunction;
  std::string target; // call_function: "torch.ops.aten.linear.default", "getitem";
                      // get_attr: the state FQN "linear1.weight"; else the name
  // Serialized metadata strings (a getitem shares its op's), "" when absent. They point
  // into the Archive's parsed document and live as long as the Archive.
  std::string_view torch_fn;
  std::string_view nn_module_stack;
  std::string_view stack_trace;
  std::vector<int> inputs; // all_input_nodes: distinct producers in argument order
  std::vector<int> users;  // consumers in graph order
};

struct FxGraph {
  std::vector<FxNode> nodes; // graph order
};

// Throws ArchiveError (naming the archive) if the graph is malformed.
FxGraph unlifted_graph(const Archive& archive);

} // namespace opscope::inspect
