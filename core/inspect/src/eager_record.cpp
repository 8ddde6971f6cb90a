// Eager record (python/opscope_export/eager_trace.py) -> Index, the way coreai-opt 0.4.0
// builds its eager summary (coreai_opt/inspection/_eager_mode.py: build_module_tree,
// _populate_boundary_ops_eager): ops hang under the deepest module of their stack,
// modules exist only if some op ran inside them, boundaries come from the tensors
// seen at each module's first call.
#include "opscope/inspect/eager.h"

#include "opscope/inspect/compressor_tables.h"
#include "state_tensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace opscope::inspect {
namespace {

using index::Compressor;
using nlohmann::json;

constexpr int kRecordVersion = 1;
constexpr const char* kRecordFormat = "opscope-eager-trace";

index::OpKind parse_kind(const std::string& kind, const std::string& origin) {
  if (kind == "call")
    return index::OpKind::Call;
  if (kind == "input")
    return index::OpKind::Input;
  if (kind == "output")
    return index::OpKind::Output;
  if (kind == "state")
    return index::OpKind::State;
  throw EagerRecordError(origin + ": eager record has an op of unknown kind '" + kind +
                         "'; re-export the model with this opscope");
}

std::optional<index::InputEdge> parse_edge(const json& j) {
  if (j.is_null())
    return std::nullopt;
  index::InputEdge edge;
  edge.producer = j.at("producer").get<std::string>();
  if (const auto& slot = j.at("slot"); !slot.is_null())
    edge.slot = slot.get<int>();
  edge.is_state = j.value("state", false);
  return edge;
}

index::Op parse_op(index::Index& idx, const json& j, const std::string& origin) {
  index::Op op;
  op.name = j.at("name").get<std::string>();
  op.kind = parse_kind(j.at("kind").get<std::string>(), origin);
  if (op.kind == index::OpKind::Call)
    op.type = j.at("type").get<std::string>();
  for (const auto& ctx : j.at("module_stack"))
    op.module_stack.push_back({ctx.at(0).get<std::string>(), ctx.at(1).get<std::string>()});
  for (const auto& f : j.at("source"))
    op.source.push_back({f.at("file").get<std::string>(), f.at("line").get<int>(),
                         f.at("function").get<std::string>(), f.at("code").get<std::string>()});
  for (const auto& e : j.at("inputs"))
    if (auto edge = parse_edge(e))
      op.inputs.push_back(std::move(*edge));
  for (const auto& o : j.at("outputs"))
    op.outputs.emplace_back(o.at(0).get<int>(), o.at(1).get<std::vector<std::string>>());
  // The summary lists slots in order (coreai-opt sorts them when printing).
  std::sort(op.outputs.begin(), op.outputs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (op.kind == index::OpKind::Call)
    apply_eager_registries(idx, op, j.at("function").get<std::string>());
  return op;
}

// build_module_tree: modules in first-seen order, so parents precede children.
void build_module_tree(index::Index& idx) {
  std::map<std::pair<int, std::string>, int> child_of; // (parent, name) -> module
  for (int op_pos = 0; op_pos < static_cast<int>(idx.ops.size()); ++op_pos) {
    const auto& op = idx.ops[op_pos];
    if (op.kind == index::OpKind::State || op.module_stack.empty())
      continue;
    int current = 0;
    for (const auto& ctx : op.module_stack) {
      if (ctx.name.empty())
        continue;
      auto [it, inserted] = child_of.try_emplace({current, ctx.name}, 0);
      if (inserted) {
        it->second = static_cast<int>(idx.modules.size());
        index::Module child;
        child.name = ctx.name;
        child.type = ctx.type;
        child.parent = current;
        idx.modules.push_back(std::move(child));
        idx.modules[current].children.push_back(it->second);
      }
      current = it->second;
    }
    idx.modules[current].ops.push_back(op_pos);
  }
}

using BoundaryRecord = std::vector<std::optional<index::InputEdge>>;

std::unordered_map<std::string, BoundaryRecord> parse_boundaries(const json& j) {
  std::unordered_map<std::string, BoundaryRecord> out;
  for (const auto& [name, edges] : j.items()) {
    BoundaryRecord record;
    for (const auto& e : edges)
      record.push_back(parse_edge(e));
    out.emplace(name, std::move(record));
  }
  return out;
}

// _populate_boundary_ops_eager, for every module of the tree.
void populate_boundaries(index::Index& idx,
                         const std::unordered_map<std::string, BoundaryRecord>& inputs,
                         const std::unordered_map<std::string, BoundaryRecord>& outputs) {
  // Every module's subtree ops, in execution order (each op joins all its ancestors).
  std::unordered_map<std::string, std::vector<int>> subtree_ops;
  for (int pos = 0; pos < static_cast<int>(idx.ops.size()); ++pos)
    for (const auto& ctx : idx.ops[pos].module_stack)
      subtree_ops[ctx.name].push_back(pos);

  for (auto& module : idx.modules) {
    const auto& ops = subtree_ops[module.name];
    std::unordered_set<std::string> inside;
    for (int pos : ops)
      inside.insert(idx.ops[pos].name);

    // (external producer, its slot) -> the ops inside (and input slot) reading it.
    std::map<std::pair<std::string, std::optional<int>>, std::vector<index::BoundaryEdge>>
        external_consumers;
    for (int pos : ops) {
      const auto& op = idx.ops[pos];
      for (int i = 0; i < static_cast<int>(op.inputs.size()); ++i) {
        const auto& in = op.inputs[i];
        if (!in.is_state && !inside.contains(in.producer))
          external_consumers[{in.producer, in.slot}].push_back({op.name, i});
      }
    }

    if (auto it = inputs.find(module.name); it != inputs.end()) {
      for (int spec = 0; spec < static_cast<int>(it->second.size()); ++spec) {
        const auto& entry = it->second[spec];
        if (!entry || entry->is_state)
          continue;
        auto consumers = external_consumers.find({entry->producer, entry->slot});
        if (consumers == external_consumers.end() || consumers->second.empty())
          continue;
        module.inputs.emplace_back(spec, consumers->second);
      }
    }
    if (auto it = outputs.find(module.name); it != outputs.end()) {
      for (int spec = 0; spec < static_cast<int>(it->second.size()); ++spec) {
        const auto& entry = it->second[spec];
        if (!entry || entry->is_state || !entry->slot || !inside.contains(entry->producer))
          continue;
        module.outputs.emplace_back(spec, index::BoundaryEdge{entry->producer, *entry->slot});
      }
    }
  }
}

void collect_source_files(index::Index& idx) {
  std::set<std::string> seen;
  for (const auto& op : idx.ops)
    for (const auto& frame : op.source)
      if (seen.insert(frame.file).second)
        idx.provenance.source_files.push_back(frame.file);
}

} // namespace

index::Index build_eager_index_from_record(const std::string& record_json,
                                           const std::string& origin) {
  json doc = json::parse(record_json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("format", "") != kRecordFormat)
    throw EagerRecordError(origin + ": the eager record (extra/" + std::string(kEagerRecordName) +
                           ") is not valid JSON from opscope's export helper; " +
                           export_both_modes_hint(origin));
  if (auto error = doc.find("error"); error != doc.end())
    throw EagerRecordError(origin +
                           ": eager mode is unavailable: running the model at export "
                           "failed (" +
                           error->get<std::string>() + "); fix the model or use --mode graph");
  if (int version = doc.value("version", 0); version != kRecordVersion)
    throw EagerRecordError(origin + ": eager record version " + std::to_string(version) +
                           ", this opscope reads version " + std::to_string(kRecordVersion) +
                           "; re-export the model with this opscope");
  try {
    index::Index idx;
    idx.mode = index::Mode::Eager;
    idx.provenance.torch_version = doc.value("torch_version", "");
    index::Module root;
    root.type = doc.at("model_type").get<std::string>();
    idx.modules.push_back(std::move(root));
    for (const auto& op : doc.at("ops"))
      idx.ops.push_back(parse_op(idx, op, origin));
    build_module_tree(idx);
    populate_boundaries(idx, parse_boundaries(doc.at("module_inputs")),
                        parse_boundaries(doc.at("module_outputs")));
    collect_source_files(idx);
    idx.parameters = record_parameters(doc, origin);
    idx.rebuild_lookups();
    require_indexable(idx, origin);
    return idx;
  } catch (const json::exception& e) {
    throw EagerRecordError(origin + ": corrupt eager record (" + e.what() +
                           "); re-export the model with this opscope");
  }
}

} // namespace opscope::inspect
