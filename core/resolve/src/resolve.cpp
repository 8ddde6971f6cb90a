#include "opscope/resolve/resolve.h"

#include "opscope/coreai/compressors.h"
#include "opscope/coreai/tables.h"

#include "opscope/index/query.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

namespace opscope::resolve {
namespace {

using config::ConfigDocument;
using config::PatternKey;
using config::Scope;
using config::Table;

// One table's entries as Python's dict holds them after PyYAML / json read the document: a
// key written twice keeps the position of its first occurrence and the value of its last.
std::vector<int> dict_order(const ConfigDocument& doc, const std::vector<int>& keys) {
  std::vector<int> order;
  std::unordered_map<std::string, std::size_t> slot;
  for (int k : keys) {
    auto [it, inserted] = slot.emplace(doc.keys[static_cast<std::size_t>(k)].text, order.size());
    if (inserted)
      order.push_back(k);
    else
      order[it->second] = k;
  }
  return order;
}

// The op tables of one module config: op_name_config and op_type_config in dict order.
struct OpTables {
  std::vector<int> by_name;
  std::vector<int> by_type;
};

// Identifies a module config by where its key is written (a table key's range is unique).
struct ModuleEntryId {
  bool global = false;
  Table table = Table::ModuleName;
  config::Position at;
  auto operator<=>(const ModuleEntryId&) const = default;
};

ModuleEntryId id_of_scope(const Scope& scope) {
  if (scope.kind == Scope::Kind::Global)
    return {true, Table::ModuleName, {}};
  return {false, scope.kind == Scope::Kind::ModuleType ? Table::ModuleType : Table::ModuleName,
          scope.key_range.start};
}

bool decider_null(const ConfigDocument& doc, const Decider& d) {
  switch (d.kind) {
  case Decider::Kind::DefaultGlobal:
    return false;
  case Decider::Kind::Global:
    return doc.global_config_null;
  case Decider::Kind::Key:
    return doc.keys[static_cast<std::size_t>(d.key)].null_value;
  }
  return false;
}

class Resolver {
public:
  Resolver(const ConfigDocument& doc, const index::Index& index) : doc_(doc), index_(index) {}

  Resolution run() {
    collect_tables();
    resolve_modules();
    resolve_ops();
    return std::move(out_);
  }

private:
  void collect_tables() {
    std::vector<int> names, types;
    std::map<ModuleEntryId, std::vector<int>> op_names, op_types;
    for (std::size_t i = 0; i < doc_.keys.size(); ++i) {
      const PatternKey& key = doc_.keys[i];
      int k = static_cast<int>(i);
      switch (key.table) {
      case Table::ModuleName:
        names.push_back(k);
        break;
      case Table::ModuleType:
        types.push_back(k);
        break;
      case Table::OpName:
        op_names[id_of_scope(key.scope)].push_back(k);
        break;
      case Table::OpType:
        op_types[id_of_scope(key.scope)].push_back(k);
        break;
      }
    }
    name_entries_ = dict_order(doc_, names);
    type_entries_ = dict_order(doc_, types);
    for (auto& [id, keys] : op_names)
      op_tables_[id].by_name = dict_order(doc_, keys);
    for (auto& [id, keys] : op_types)
      op_tables_[id].by_type = dict_order(doc_, keys);
  }

  // build_module_config_dict: the rank of an entry is when it is applied (module name keys
  // last-written first, then module type keys last-written first, then global). A module
  // goes to the first-applied entry matching it or one of its ancestors, because
  // _set_config_for_module claims a matched module's whole unclaimed subtree and never
  // revisits a module.
  void resolve_modules() {
    std::vector<Decider> by_rank;
    for (auto it = name_entries_.rbegin(); it != name_entries_.rend(); ++it)
      by_rank.push_back({Decider::Kind::Key, *it});
    for (auto it = type_entries_.rbegin(); it != type_entries_.rend(); ++it)
      by_rank.push_back({Decider::Kind::Key, *it});
    by_rank.push_back(
        {doc_.global_config_range ? Decider::Kind::Global : Decider::Kind::DefaultGlobal, -1});
    const int global_rank = static_cast<int>(by_rank.size()) - 1;

    const std::size_t n = index_.modules.size();
    std::vector<int> own(n, global_rank);
    int rank = 0;
    for (auto it = name_entries_.rbegin(); it != name_entries_.rend(); ++it, ++rank) {
      const PatternKey& key = doc_.keys[static_cast<std::size_t>(*it)];
      index::Query query(index::Table::ModuleName, key.text, false);
      if (!query.usable()) {
        out_.unresolved.push_back({*it, query.status().reason});
        continue;
      }
      for (std::size_t m = 0; m < n; ++m)
        if (own[m] > rank && query.matches(index_.modules[m].name))
          own[m] = rank;
    }
    std::unordered_map<std::string, std::vector<std::size_t>> modules_by_type;
    for (std::size_t m = 0; m < n; ++m)
      modules_by_type[index_.modules[m].type].push_back(m);
    for (auto it = type_entries_.rbegin(); it != type_entries_.rend(); ++it, ++rank) {
      auto found = modules_by_type.find(doc_.keys[static_cast<std::size_t>(*it)].text);
      if (found == modules_by_type.end())
        continue;
      for (std::size_t m : found->second)
        own[m] = std::min(own[m], rank);
    }

    // Parents precede children in Index::modules, so one pass sees each parent decided.
    std::vector<int> decided(n, global_rank);
    out_.modules.resize(n);
    for (std::size_t m = 0; m < n; ++m) {
      int parent = index_.modules[m].parent;
      int inherited = parent >= 0 ? decided[static_cast<std::size_t>(parent)] : global_rank;
      decided[m] = std::min(own[m], inherited);
      ModuleDecision& d = out_.modules[m];
      d.module = static_cast<int>(m);
      d.decider = by_rank[static_cast<std::size_t>(decided[m])];
      d.direct = own[m] == decided[m];
      d.full_precision = decider_null(doc_, d.decider);
    }
  }

  const OpTables* tables_of(const Decider& module_decider) const {
    ModuleEntryId id;
    if (module_decider.kind == Decider::Kind::DefaultGlobal)
      return nullptr; // coreai-opt's default config has no op tables
    if (module_decider.kind == Decider::Kind::Global) {
      id.global = true;
    } else {
      const PatternKey& key = doc_.keys[static_cast<std::size_t>(module_decider.key)];
      id = {false, key.table, key.range.start};
    }
    auto it = op_tables_.find(id);
    return it == op_tables_.end() ? nullptr : &it->second;
  }

  const index::Query* op_query(int key) {
    auto it = op_queries_.find(key);
    if (it != op_queries_.end())
      return it->second.get();
    auto query = std::make_unique<index::Query>(
        index::Table::OpName, doc_.keys[static_cast<std::size_t>(key)].text, false);
    if (!query->usable())
      out_.unresolved.push_back({key, query->status().reason});
    return op_queries_.emplace(key, std::move(query)).first->second.get();
  }

  // _get_config_for_node: the last op_name_config key matching the op's name, else the last
  // op_type_config key equal to its type, else the module config itself.
  Decider decide_op(const index::Op& op, const Decider& module_decider) {
    const OpTables* tables = tables_of(module_decider);
    if (!tables)
      return module_decider;
    for (auto it = tables->by_name.rbegin(); it != tables->by_name.rend(); ++it) {
      const index::Query* query = op_query(*it);
      if (query->usable() && query->matches(op.name))
        return {Decider::Kind::Key, *it};
    }
    const std::string& type = index_.type_for(op, index::Compressor::Quantizer);
    for (auto it = tables->by_type.rbegin(); it != tables->by_type.rend(); ++it)
      if (!type.empty() && doc_.keys[static_cast<std::size_t>(*it)].text == type)
        return {Decider::Kind::Key, *it};
    return module_decider;
  }

  void resolve_ops() {
    std::vector<int> module_of(index_.ops.size(), 0);
    for (std::size_t m = 0; m < index_.modules.size(); ++m)
      for (int op : index_.modules[m].ops)
        if (op >= 0 && static_cast<std::size_t>(op) < module_of.size())
          module_of[static_cast<std::size_t>(op)] = static_cast<int>(m);
    for (std::size_t i = 0; i < index_.ops.size(); ++i) {
      const index::Op& op = index_.ops[i];
      if (op.kind != index::OpKind::Call ||
          !(op.compressors & static_cast<std::uint8_t>(index::Compressor::Quantizer)))
        continue;
      OpDecision d;
      d.op = static_cast<int>(i);
      d.module = module_of[i];
      d.decider = decide_op(op, out_.modules[static_cast<std::size_t>(d.module)].decider);
      d.full_precision = decider_null(doc_, d.decider);
      out_.ops.push_back(d);
    }
  }

  const ConfigDocument& doc_;
  const index::Index& index_;
  std::vector<int> name_entries_, type_entries_; // dict order
  std::map<ModuleEntryId, OpTables> op_tables_;
  std::unordered_map<int, std::unique_ptr<index::Query>> op_queries_;
  Resolution out_;
};

} // namespace

Resolution resolve_quantizer(const ConfigDocument& document, const index::Index& index) {
  return Resolver(document, index).run();
}

std::vector<std::string> decider_path(const ConfigDocument& document, const Decider& decider) {
  if (decider.kind == Decider::Kind::DefaultGlobal)
    return {};
  const coreai::CompressorInfo* compressor = coreai::find(document.root);
  std::vector<std::string> path{compressor ? std::string(compressor->root_key) : std::string()};
  if (decider.kind == Decider::Kind::Global) {
    path.push_back("global_config");
    return path;
  }
  const PatternKey& key = document.keys[static_cast<std::size_t>(decider.key)];
  if (key.table == Table::OpName || key.table == Table::OpType) {
    switch (key.scope.kind) {
    case Scope::Kind::Global:
      path.push_back("global_config");
      break;
    case Scope::Kind::ModuleType:
      path.push_back("module_type_configs");
      path.push_back(key.scope.key);
      break;
    case Scope::Kind::ModuleName:
      path.push_back("module_name_configs");
      path.push_back(key.scope.key);
      break;
    }
  }
  path.push_back(coreai::config_key(key.table));
  path.push_back(key.text);
  return path;
}

int decider_line(const ConfigDocument& document, const Decider& decider) {
  switch (decider.kind) {
  case Decider::Kind::DefaultGlobal:
    return -1;
  case Decider::Kind::Global:
    return document.global_config_range ? document.global_config_range->start.line : -1;
  case Decider::Kind::Key:
    return document.keys[static_cast<std::size_t>(decider.key)].range.start.line;
  }
  return -1;
}

} // namespace opscope::resolve
