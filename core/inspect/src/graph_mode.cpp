// Mirrors coreai_opt/inspection/_graph_mode.py (parse_ops_for_graph),
// _common.py (build_module_tree) and _utils/fx_utils.py
// (get_module_boundary_nodes) over the unlifted FX graph.
#include "opscope/inspect/graph_mode.h"

#include "module_objects.h"
#include "opscope/inspect/compressor_tables.h"
#include "opscope/inspect/fx_graph.h"
#include "opscope/inspect/node_metadata.h"
#include "state_tensors.h"
#include "untraced_index.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace opscope::inspect {
namespace {

using index::BoundaryEdge;
using index::Index;
using index::InputEdge;
using index::Module;
using index::ModuleContext;
using index::Op;
using index::OpKind;

// `is_coreai_compressed_state_node`: get_attr, or a coreai op that decompresses a weight.
bool is_state_node(const FxNode& node) {
  if (node.op == FxOp::GetAttr)
    return true;
  if (node.op != FxOp::CallFunction)
    return false;
  std::string_view target = node.target;
  std::string_view ns = "torch.ops.coreai.";
  if (target.substr(0, ns.size()) != ns)
    return false;
  target.remove_prefix(ns.size());
  std::string_view op = target.substr(0, target.find('.'));
  return op == "lut_to_dense" || op == "constexpr_blockwise_shift_scale" ||
         op == "sparse_to_dense" || op == "sparse_with_bitmask_to_dense";
}

OpKind kind_of(FxOp op) {
  switch (op) {
  case FxOp::Placeholder:
    return OpKind::Input;
  case FxOp::GetAttr:
    return OpKind::State;
  case FxOp::Output:
    return OpKind::Output;
  case FxOp::CallFunction:
    break;
  }
  return OpKind::Call;
}

// Phase 1 + 2 of parse_ops_for_graph: one op per node, edges from the graph.
void add_ops(const FxGraph& graph, Index& index) {
  // Many nodes share one nn_module_stack or stack_trace string (every layer of a
  // deep model runs the same lines): parse each string once.
  std::unordered_map<std::string_view, std::vector<ModuleContext>> stacks;
  std::unordered_map<std::string_view, std::vector<index::SourceFrame>> traces;
  index.ops.reserve(graph.nodes.size());
  for (const auto& node : graph.nodes) {
    Op op;
    op.name = node.op == FxOp::GetAttr ? node.target : node.name;
    op.kind = kind_of(node.op);
    op.type = op_type_of_torch_fn(node.torch_fn);
    std::string_view stack_text = node.nn_module_stack;
    auto cached = stacks.find(stack_text);
    if (cached == stacks.end())
      cached = stacks.emplace(stack_text, module_stack_of(stack_text)).first;
    op.module_stack = cached->second;
    std::string_view trace_text = node.stack_trace;
    auto trace = traces.find(trace_text);
    if (trace == traces.end())
      trace = traces.emplace(trace_text, parse_stack_trace(trace_text)).first;
    op.source = trace->second;
    if (node.op == FxOp::CallFunction)
      apply_graph_registries(index, op, node.target);
    index.ops.push_back(std::move(op));
  }
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const FxNode& node = graph.nodes[i];
    Op& op = index.ops[i];
    for (int producer : node.inputs) {
      InputEdge edge;
      edge.producer = index.ops[producer].name;
      edge.is_state = graph.nodes[producer].op == FxOp::GetAttr;
      if (!edge.is_state)
        edge.slot = 0; // graph mode: every output is slot 0
      op.inputs.push_back(std::move(edge));
    }
    std::vector<std::string> consumers;
    consumers.reserve(node.users.size());
    for (int user : node.users)
      consumers.push_back(index.ops[user].name);
    op.outputs.emplace_back(0, std::move(consumers));
  }
}

// build_module_tree: each non-state op with a module stack hangs under the
// deepest module of its stack; modules are keyed by name within their parent.
void add_module_tree(Index& index) {
  std::string root_type;
  for (const auto& op : index.ops) {
    for (const auto& ctx : op.module_stack)
      if (ctx.name.empty()) {
        root_type = ctx.type;
        break;
      }
    if (!root_type.empty())
      break;
  }
  index.modules.push_back(Module{"", root_type, -1, {}, {}, {}, {}});
  std::vector<std::unordered_map<std::string, int>> children_by_name(1);
  for (std::size_t i = 0; i < index.ops.size(); ++i) {
    const Op& op = index.ops[i];
    if (op.kind == OpKind::State || op.module_stack.empty())
      continue;
    int current = 0;
    for (const auto& ctx : op.module_stack) {
      if (ctx.name.empty())
        continue;
      auto& children = children_by_name[current];
      auto found = children.find(ctx.name);
      if (found != children.end()) {
        current = found->second;
        continue;
      }
      int child = static_cast<int>(index.modules.size());
      index.modules.push_back(Module{ctx.name, ctx.type, current, {}, {}, {}, {}});
      children_by_name.emplace_back();
      children_by_name[current].emplace(ctx.name, child);
      index.modules[current].children.push_back(child);
      current = child;
    }
    index.modules[current].ops.push_back(static_cast<int>(i));
  }
}

// _populate_boundary_ops_graph + get_module_boundary_nodes. Nodes are bucketed
// by module *name* (as coreai-opt does), duplicates kept; membership uses a
// stamp per module so each module costs O(its nodes and their edges).
void add_boundaries(const FxGraph& graph, Index& index) {
  std::unordered_map<std::string_view, std::vector<int>> nodes_by_module;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].op == FxOp::GetAttr)
      continue;
    for (const auto& ctx : index.ops[i].module_stack)
      nodes_by_module[ctx.name].push_back(static_cast<int>(i));
  }
  std::vector<int> stamp(graph.nodes.size(), -1);
  const std::vector<int> none;
  for (std::size_t m = 0; m < index.modules.size(); ++m) {
    Module& module = index.modules[m];
    auto found = nodes_by_module.find(module.name);
    const std::vector<int>& members = found == nodes_by_module.end() ? none : found->second;
    const int mark = static_cast<int>(m);
    for (int n : members)
      stamp[n] = mark;
    int input_spec = 0;
    int output_spec = 0;
    for (int n : members) {
      const FxNode& node = graph.nodes[n];
      for (std::size_t slot = 0; slot < node.inputs.size(); ++slot) {
        int producer = node.inputs[slot];
        if (is_state_node(graph.nodes[producer]) || stamp[producer] == mark)
          continue;
        module.inputs.emplace_back(
            input_spec++, std::vector<BoundaryEdge>{{index.ops[n].name, static_cast<int>(slot)}});
      }
      for (int user : node.users) {
        if (stamp[user] != mark) {
          module.outputs.emplace_back(output_spec++, BoundaryEdge{index.ops[n].name, 0});
          break;
        }
      }
    }
  }
}

std::vector<std::string> source_files(const Index& index) {
  std::vector<std::string> files;
  std::unordered_set<std::string> seen;
  for (const auto& op : index.ops)
    for (const auto& frame : op.source)
      if (seen.insert(frame.file).second)
        files.push_back(frame.file);
  return files;
}

} // namespace

Index build_graph_index(const Archive& archive) {
  if (is_untraced(archive))
    return build_untraced_index(archive, index::Mode::Graph);
  FxGraph graph = unlifted_graph(archive);
  Index index;
  index.mode = index::Mode::Graph;
  index.provenance.archive = archive.path;
  index.provenance.archive_hash = archive.content_hash;
  index.provenance.torch_version = archive.torch_version;
  add_ops(graph, index);
  add_module_tree(index);
  add_boundaries(graph, index);
  index.parameters = graph_parameters(archive);
  index.module_objects = archive_module_objects(archive);
  index.provenance.source_files = source_files(index);
  index.rebuild_lookups();
  require_indexable(index, archive.path);
  return index;
}

} // namespace opscope::inspect
