#include "opscope/resolve/pruner.h"

#include "op_entry.h"
#include "opscope/coreai/config/values.h"
#include "opscope/resolve/size.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

namespace opscope::resolve {
namespace {

using config::ConfigDocument;
using config::PatternKey;
using config::Scope;
using config::Table;
using json = nlohmann::ordered_json;

// Where a module config is written: the global config, or the range of its table key.
struct EntryId {
  bool global = false;
  config::Position at;
  auto operator<=>(const EntryId&) const = default;
};

EntryId id_of(const Scope& scope) {
  if (scope.kind == Scope::Kind::Global)
    return {true, {}};
  return {false, scope.key_range.start};
}

// One op table as Python's dict holds it: a key written twice keeps its first position and
// its last value (so the last occurrence is the key reported).
void add_in_dict_order(const ConfigDocument& doc, std::vector<int>& table, int key) {
  for (int& k : table)
    if (doc.keys[static_cast<std::size_t>(k)].text ==
        doc.keys[static_cast<std::size_t>(key)].text) {
      k = key;
      return;
    }
  table.push_back(key);
}

struct OpTables {
  std::vector<int> by_name, by_type;
};

class PrunerOps {
public:
  PrunerOps(const ConfigDocument& doc, const index::Index& index, Resolution& out)
      : doc_(doc), index_(index), out_(out), compressor_(out.compressor) {
    for (std::size_t i = 0; i < doc.keys.size(); ++i) {
      const PatternKey& key = doc.keys[i];
      if (key.config_object != out.object)
        continue; // another config object of the file
      if (key.table == Table::OpName)
        add_in_dict_order(doc, tables_[id_of(key.scope)].by_name, static_cast<int>(i));
      else if (key.table == Table::OpType)
        add_in_dict_order(doc, tables_[id_of(key.scope)].by_type, static_cast<int>(i));
    }
  }

  // _get_op_compression_components (op_entry.h), over this config object's op tables.
  Decider decide(const index::Op& op, const Decider& module_decider) {
    const OpTables* tables = tables_of(module_decider);
    if (!tables)
      return module_decider;
    const detail::OpEntry entry = detail::op_entry(
        tables->by_name.size(),
        [&](std::size_t i) {
          const index::Query& q = query(tables->by_name[i]);
          return q.usable() && q.matches(op.name);
        },
        tables->by_type.size(),
        [&](std::size_t i) -> const std::string& {
          return doc_.keys[static_cast<std::size_t>(tables->by_type[i])].text;
        },
        index_.type_for(op, compressor_));
    switch (entry.level) {
    case detail::OpLevel::OpName:
      return {Decider::Kind::Key, tables->by_name[entry.at]};
    case detail::OpLevel::OpType:
      return {Decider::Kind::Key, tables->by_type[entry.at]};
    case detail::OpLevel::Module:
      break;
    }
    return module_decider;
  }

private:
  const OpTables* tables_of(const Decider& d) const {
    if (d.kind == Decider::Kind::DefaultGlobal)
      return nullptr; // the compressors' default global configs have no op tables
    EntryId id{true, {}};
    if (d.kind == Decider::Kind::Key)
      id = {false, doc_.keys[static_cast<std::size_t>(d.key)].range.start};
    auto it = tables_.find(id);
    return it == tables_.end() ? nullptr : &it->second;
  }

  const index::Query& query(int key) {
    auto it = queries_.find(key);
    if (it == queries_.end()) {
      auto q = std::make_unique<index::Query>(index::Table::OpName,
                                              doc_.keys[static_cast<std::size_t>(key)].text, false);
      if (!q->usable())
        out_.unresolved.push_back({key, q->status().reason});
      it = queries_.emplace(key, std::move(q)).first;
    }
    return *it->second;
  }

  const ConfigDocument& doc_;
  const index::Index& index_;
  Resolution& out_;
  index::Compressor compressor_;
  std::map<EntryId, OpTables> tables_;
  std::unordered_map<int, std::unique_ptr<index::Query>> queries_;
};

} // namespace

Resolution resolve_eager_ops(const ConfigDocument& document, const index::Index& index,
                             const index::QueryEngine* engine, int object) {
  // The module level is the same build_module_config_dict for every compressor.
  Resolution out = resolve_quantizer(document, index, engine, object);
  out.ops.clear();
  // The graph annotation's shared tensors (rows of the ops just cleared) do not apply: in
  // eager mode a tied tensor goes to its highest-priority reader (WeightDecision::readers).
  out.shared.clear();
  out.compressor = document.root;

  // Which parameters end up compressed (pruned, palettized, quantized): a registered op whose
  // weights all stay uncompressed (its spec dict names none of them, or names them with null)
  // is left in full precision.
  std::vector<bool> pruned(index.parameters.size(), false);
  std::vector<bool> by_module_spec(index.parameters.size(), false); // module_state_spec reached
  if (auto values = config::read_values(document)) {
    EagerWeights weights = resolve_eager_weights(document, *values, index, &out);
    for (const WeightDecision& w : weights.parameters) {
      std::string why; // a spec that does not fit the shape: coreai-opt disables it
      pruned[static_cast<std::size_t>(w.parameter)] =
          !w.spec.is_null() && !w.spec_table.empty() && spec_fits(index, w, out.compressor, why);
      by_module_spec[static_cast<std::size_t>(w.parameter)] = w.spec_table == "module_state_spec";
    }
  }

  std::vector<int> module_of(index.ops.size(), 0);
  for (std::size_t m = 0; m < index.modules.size(); ++m)
    for (int op : index.modules[m].ops)
      if (op >= 0 && static_cast<std::size_t>(op) < module_of.size())
        module_of[static_cast<std::size_t>(op)] = static_cast<int>(m);

  PrunerOps ops(document, index, out);
  for (std::size_t i = 0; i < index.ops.size(); ++i) {
    const index::Op& op = index.ops[i];
    if (op.kind != index::OpKind::Call)
      continue;
    // An unregistered op counts when a module_state_spec reaches a tensor it reads (an RMSNorm's
    // weight): the compressor parametrizes that tensor too.
    if (!op.compressible_by(out.compressor)) {
      const auto& reads = index.op_parameters(i);
      if (std::none_of(reads.begin(), reads.end(),
                       [&](int p) { return by_module_spec[static_cast<std::size_t>(p)]; }))
        continue;
    }
    OpDecision d;
    d.op = d.primary = static_cast<int>(i);
    d.module = module_of[i];
    d.module_entry = out.modules[static_cast<std::size_t>(d.module)].decider;
    d.decider = ops.decide(op, d.module_entry);
    d.full_precision = decider_null(document, d.decider);
    if (!d.full_precision) {
      bool reads_weights = false, any_pruned = false;
      for (int p : index.op_parameters(i)) {
        const index::Parameter& param = index.parameters[static_cast<std::size_t>(p)];
        if (param.buffer)
          continue;
        reads_weights = true;
        any_pruned = any_pruned || pruned[static_cast<std::size_t>(p)];
      }
      d.full_precision = reads_weights && !any_pruned;
    }
    out.ops.push_back(d);
  }
  return out;
}

json filled_pruning_spec(const json& spec) {
  if (!spec.is_object())
    return spec.is_null() ? json(nullptr) : spec;
  json out = spec;
  if (!out.contains("target_sparsity"))
    out["target_sparsity"] = 0.5;
  json scheme =
      out.contains("pruning_scheme") ? out["pruning_scheme"] : json{{"type", "unstructured"}};
  if (scheme.is_string())
    scheme = json{{"type", scheme}};
  if (scheme.is_object() && scheme.value("type", "") == "channel_structured" &&
      !scheme.contains("axis"))
    scheme["axis"] = 0;
  out["pruning_scheme"] = scheme;
  if (!out.contains("pruning_algo"))
    out["pruning_algo"] = "default";
  return out;
}

} // namespace opscope::resolve
