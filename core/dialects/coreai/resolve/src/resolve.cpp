#include "opscope/resolve/resolve.h"

#include "opscope/coreai/compressors.h"
#include "opscope/coreai/tables.h"

#include "op_entry.h"
#include "opscope/index/named_modules.h"
#include "opscope/index/query.h"
#include "patterns.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
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
  std::unordered_map<std::string_view, std::size_t> slot; // views of doc.keys' texts
  slot.reserve(keys.size());
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

// The config object's global_config (the document's when the object is out of range).
const config::ConfigObject& global_config_of(const ConfigDocument& doc, int object) {
  static const config::ConfigObject kNone;
  if (object >= 0 && static_cast<std::size_t>(object) < doc.objects.size())
    return doc.objects[static_cast<std::size_t>(object)];
  return doc.objects.empty() ? kNone : doc.objects.front();
}

ModuleEntryId id_of_scope(const Scope& scope) {
  if (scope.kind == Scope::Kind::Global)
    return {true, Table::ModuleName, {}};
  return {false, scope.kind == Scope::Kind::ModuleType ? Table::ModuleType : Table::ModuleName,
          scope.key_range.start};
}

class Resolver {
public:
  Resolver(const ConfigDocument& doc, const index::Index& index, const index::QueryEngine* engine,
           int object)
      : doc_(doc), index_(index), object_(object) {
    if (!engine)
      engine = &owned_engine_.emplace(index);
    engine_ = engine;
  }

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
      if (key.config_object != object_)
        continue; // another config object of the file: resolved on its own
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
  // last-written first, then module type keys last-written first, then global). It runs over
  // named_modules() objects, containers that forward() never calls included (`model.layers`),
  // and matches a name key against every name of an object (_build_module_alias_map). An
  // object goes to the first-applied entry matching it or one of its ancestors along any path,
  // because _set_config_for_module claims a matched object's whole unclaimed subtree through
  // named_children() and never revisits an object; a call takes its object's decision
  // (_alias_to_canonical in the graph quantizer).
  void resolve_modules() {
    std::vector<Decider> by_rank;
    for (auto it = name_entries_.rbegin(); it != name_entries_.rend(); ++it)
      by_rank.push_back({Decider::Kind::Key, *it, object_});
    for (auto it = type_entries_.rbegin(); it != type_entries_.rend(); ++it)
      by_rank.push_back({Decider::Kind::Key, *it, object_});
    by_rank.push_back({global_config_of(doc_, object_).global_config_range
                           ? Decider::Kind::Global
                           : Decider::Kind::DefaultGlobal,
                       -1, object_});
    const int global_rank = static_cast<int>(by_rank.size()) - 1;

    const std::vector<index::ModuleObject>& objects = index_.named_modules();
    const std::size_t count = objects.size();
    std::vector<int> own(count, global_rank);
    auto add_entry = [&](int key, int rank, std::vector<int> matched_objects) {
      for (int o : matched_objects)
        own[static_cast<std::size_t>(o)] = std::min(own[static_cast<std::size_t>(o)], rank);
      entries_by_rank_.push_back({key, index::modules_reached(index_, matched_objects)});
      objects_by_rank_.push_back(std::move(matched_objects));
    };
    // Every name key's matches in one pass over the names.
    std::vector<std::shared_ptr<const index::Query>> queries;
    std::vector<const index::Query*> usable;
    for (auto it = name_entries_.rbegin(); it != name_entries_.rend(); ++it) {
      queries.push_back(
          engine_->query(index::Table::ModuleName, doc_.keys[static_cast<std::size_t>(*it)].text));
      usable.push_back(queries.back()->usable() ? queries.back().get() : nullptr);
    }
    std::vector<std::vector<int>> matches = index::objects_matching_each(*engine_, usable);
    int rank = 0;
    for (auto it = name_entries_.rbegin(); it != name_entries_.rend(); ++it, ++rank) {
      const std::size_t i = static_cast<std::size_t>(it - name_entries_.rbegin());
      if (!usable[i]) {
        out_.unresolved.push_back({*it, queries[i]->status().reason});
        continue;
      }
      add_entry(*it, rank, std::move(matches[i]));
    }
    for (auto it = type_entries_.rbegin(); it != type_entries_.rend(); ++it, ++rank)
      add_entry(*it, rank,
                index::objects_matching(
                    *engine_, *engine_->query(index::Table::ModuleType,
                                              doc_.keys[static_cast<std::size_t>(*it)].text)));

    // Every ancestor along every path: relax down the children until nothing changes (ranks
    // only fall, so this ends even on a malformed table with a cycle).
    std::vector<int> decided = own;
    std::vector<int> work(count);
    for (std::size_t o = 0; o < count; ++o)
      work[o] = static_cast<int>(count - 1 - o);
    while (!work.empty()) {
      auto o = static_cast<std::size_t>(work.back());
      work.pop_back();
      for (int child : objects[o].children) {
        auto c = static_cast<std::size_t>(child);
        if (c < count && decided[o] < decided[c]) {
          decided[c] = decided[o];
          work.push_back(child);
        }
      }
    }
    claim_objects(by_rank.size() - 1);
    for (std::size_t m = 0; m < index_.modules.size(); ++m)
      if (int o = index_.module_object(m); o >= 0)
        insertion_[m] = object_insertion_[static_cast<std::size_t>(o)];

    // Reported in dict order, name keys first.
    std::reverse(entries_by_rank_.begin(), entries_by_rank_.end());
    std::stable_partition(
        entries_by_rank_.begin(), entries_by_rank_.end(), [&](const EntryMatch& e) {
          return doc_.keys[static_cast<std::size_t>(e.key)].table == Table::ModuleName;
        });
    out_.entries = std::move(entries_by_rank_);

    // A module the table does not name (it should name all) inherits from its tree parent.
    const std::size_t n = index_.modules.size();
    std::vector<int> module_decided(n, global_rank);
    out_.modules.resize(n);
    for (std::size_t m = 0; m < n; ++m) {
      int o = index_.module_object(m);
      int parent = index_.modules[m].parent;
      int mine =
          o >= 0 ? decided[static_cast<std::size_t>(o)]
                 : (parent >= 0 ? module_decided[static_cast<std::size_t>(parent)] : global_rank);
      module_decided[m] = mine;
      ModuleDecision& d = out_.modules[m];
      d.module = static_cast<int>(m);
      d.decider = by_rank[static_cast<std::size_t>(mine)];
      d.direct = o >= 0 ? own[static_cast<std::size_t>(o)] == mine : mine == global_rank;
      d.full_precision = decider_null(doc_, d.decider);
    }
    // Calls of one object share its place; a module the table does not name keeps its own.
    const int object_count = static_cast<int>(count);
    assign_priorities([&](std::size_t m) {
      int o = index_.module_object(m);
      return o >= 0 ? o : object_count + static_cast<int>(m);
    });
  }

  // ModuleDecision::priority. Name and type levels: the claim order (claim_objects). Global:
  // _apply_configs walks reversed(named_modules()) and each module it reaches is still unclaimed
  // (its children come after it in named_modules(), so they were reached before it): the last
  // module takes the first place. `order(m)` is module m's place in named_modules() (equal for
  // calls of one object).
  template <typename Order> void assign_priorities(Order order) {
    const std::size_t n = out_.modules.size();
    std::vector<std::pair<int, std::size_t>> global; // (named_modules place, module)
    for (std::size_t m = 0; m < n; ++m) {
      int level = level_of(doc_, out_.modules[m].decider);
      if (level == 2)
        global.emplace_back(static_cast<int>(order(m)), m);
      else
        out_.modules[m].priority =
            (level == 1 ? level_sizes_[0] : 0) + insertion_[static_cast<std::size_t>(m)];
    }
    std::sort(global.begin(), global.end(), std::greater<>());
    int place = -1, last = -1;
    for (const auto& [at, m] : global) {
      if (place < 0 || at != last)
        ++place;
      last = at;
      out_.modules[m].priority = level_sizes_[0] + level_sizes_[1] + place;
    }
  }

  // _set_config_for_module's order of insertion into module_config_dict[level]: entries in
  // rank order, each over its matched objects last-listed first (reversed named_modules), a
  // claim taking the object's unclaimed subtree depth first; each object takes one place
  // (visited is by object). An op's "priority" in the annotation sort is its module's position
  // at its level.
  void claim_objects(std::size_t ranked_entries) {
    const std::vector<index::ModuleObject>& objects = index_.named_modules();
    const std::size_t count = objects.size();
    insertion_.assign(index_.modules.size(), 0);
    object_insertion_.assign(count, 0);
    std::vector<bool> visited(count, false);
    int counters[2] = {0, 0};
    std::vector<int> stack;
    for (std::size_t r = 0; r < ranked_entries && r < objects_by_rank_.size(); ++r) {
      const EntryMatch& entry = entries_by_rank_[r];
      int level = doc_.keys[static_cast<std::size_t>(entry.key)].table == Table::ModuleName ? 0 : 1;
      const std::vector<int>& matched = objects_by_rank_[r];
      for (auto it = matched.rbegin(); it != matched.rend(); ++it) {
        stack.assign(1, *it);
        while (!stack.empty()) {
          auto o = static_cast<std::size_t>(stack.back());
          stack.pop_back();
          if (o >= count || visited[o])
            continue;
          visited[o] = true;
          object_insertion_[o] = counters[level]++;
          for (auto c = objects[o].children.rbegin(); c != objects[o].children.rend(); ++c)
            stack.push_back(*c);
        }
      }
    }
    level_sizes_[0] = counters[0];
    level_sizes_[1] = counters[1];
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
    std::shared_ptr<const index::Query> query =
        engine_->query(index::Table::OpName, doc_.keys[static_cast<std::size_t>(key)].text);
    if (!query->usable())
      out_.unresolved.push_back({key, query->status().reason});
    return op_queries_.emplace(key, std::move(query)).first->second.get();
  }

  // _get_config_for_node (op_entry.h), and which of the three decided (_OpConfigLevel: 0 op
  // name, 1 op type, 2 the module's own specs).
  std::pair<Decider, int> decide_op(const index::Op& op, const Decider& module_decider) {
    const OpTables* tables = tables_of(module_decider);
    if (!tables)
      return {module_decider, 2};
    const detail::OpEntry entry = detail::op_entry(
        tables->by_name.size(),
        [&](std::size_t i) {
          const index::Query* query = op_query(tables->by_name[i]);
          return query->usable() && query->matches(op.name);
        },
        tables->by_type.size(),
        [&](std::size_t i) -> const std::string& {
          return doc_.keys[static_cast<std::size_t>(tables->by_type[i])].text;
        },
        index_.type_for(op, index::Compressor::Quantizer));
    switch (entry.level) {
    case detail::OpLevel::OpName:
      return {{Decider::Kind::Key, tables->by_name[entry.at], object_}, 0};
    case detail::OpLevel::OpType:
      return {{Decider::Kind::Key, tables->by_type[entry.at], object_}, 1};
    case detail::OpLevel::Module:
      break;
    }
    return {module_decider, 2};
  }

  static int level_of(const ConfigDocument& doc, const Decider& d) {
    if (d.kind != Decider::Kind::Key)
      return 2;
    return doc.keys[static_cast<std::size_t>(d.key)].table == Table::ModuleName ? 0 : 1;
  }

  // _AnnotationHandler.annotate: every pattern match of every op the Quantizer registers
  // (patterns.h), sorted by _sort_nodes_in_annotation_order (module config level, op config
  // level, longer pattern first, module priority, graph order); each op a match covers
  // takes the config of the first match covering it.
  void resolve_ops() {
    std::vector<int> module_of(index_.ops.size(), 0);
    for (std::size_t m = 0; m < index_.modules.size(); ++m)
      for (int op : index_.modules[m].ops)
        if (op >= 0 && static_cast<std::size_t>(op) < module_of.size())
          module_of[static_cast<std::size_t>(op)] = static_cast<int>(m);

    struct Ranked {
      int config_level, op_level, length, priority, position; // sort key
      int primary;
      Decider decider;
      std::vector<int> covered;
    };
    std::vector<Ranked> ranked;
    for (std::size_t i = 0; i < index_.ops.size(); ++i) {
      const index::Op& op = index_.ops[i];
      if (op.kind != index::OpKind::Call ||
          !(op.compressors & static_cast<std::uint8_t>(index::Compressor::Quantizer)))
        continue;
      const ModuleDecision& module = out_.modules[static_cast<std::size_t>(module_of[i])];
      auto [decider, op_level] = decide_op(op, module.decider);
      int config_level = level_of(doc_, module.decider);
      int priority = config_level == 2 ? 0 : insertion_[static_cast<std::size_t>(module.module)];
      for (PatternMatch& match : quantizer_pattern_matches(index_, static_cast<int>(i)))
        ranked.push_back({config_level, op_level, static_cast<int>(match.ops.size()), priority,
                          static_cast<int>(ranked.size()), static_cast<int>(i), decider,
                          std::move(match.ops)});
    }
    std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
      return std::tie(a.config_level, a.op_level, b.length, a.priority, a.position) <
             std::tie(b.config_level, b.op_level, a.length, b.priority, b.position);
    });
    std::vector<int> winner(index_.ops.size(), -1); // op -> position in `ranked`
    for (std::size_t r = 0; r < ranked.size(); ++r)
      for (int op : ranked[r].covered)
        if (winner[static_cast<std::size_t>(op)] < 0)
          winner[static_cast<std::size_t>(op)] = static_cast<int>(r);
    for (std::size_t i = 0; i < index_.ops.size(); ++i) {
      if (winner[i] < 0)
        continue;
      const Ranked& r = ranked[static_cast<std::size_t>(winner[i])];
      OpDecision d;
      d.op = static_cast<int>(i);
      d.module = module_of[i];
      d.primary = r.primary;
      d.decider = r.decider;
      d.module_entry =
          out_.modules[static_cast<std::size_t>(module_of[static_cast<std::size_t>(r.primary)])]
              .decider;
      d.full_precision = decider_null(doc_, d.decider);
      d.rank = winner[i];
      out_.ops.push_back(d);
    }
    find_shared_tensors(winner);
  }

  // Tensors read by several configured ops: the reader whose match is annotated first
  // (lowest position in the sorted matches) decides the spec they all share.
  void find_shared_tensors(const std::vector<int>& winner) {
    std::unordered_map<int, std::size_t> slot; // parameter -> index into out_.shared
    for (std::size_t k = 0; k < out_.ops.size(); ++k) {
      auto op = static_cast<std::size_t>(out_.ops[k].op);
      for (int p : index_.op_parameters(op)) {
        auto [it, inserted] = slot.emplace(p, out_.shared.size());
        if (inserted)
          out_.shared.push_back({p, static_cast<int>(k), {}});
        SharedTensor& shared = out_.shared[it->second];
        if (!shared.readers.empty() && shared.readers.back() == static_cast<int>(k))
          continue; // one op reading it twice
        shared.readers.push_back(static_cast<int>(k));
        auto first =
            static_cast<std::size_t>(out_.ops[static_cast<std::size_t>(shared.decided_by)].op);
        if (winner[op] < winner[first])
          shared.decided_by = static_cast<int>(k);
      }
    }
    std::erase_if(out_.shared, [](const SharedTensor& s) { return s.readers.size() < 2; });
  }

  const ConfigDocument& doc_;
  const index::Index& index_;
  int object_ = 0;                               // the config object resolved
  std::vector<int> name_entries_, type_entries_; // dict order
  std::map<ModuleEntryId, OpTables> op_tables_;
  std::unordered_map<int, std::shared_ptr<const index::Query>> op_queries_;
  std::optional<index::QueryEngine> owned_engine_;
  const index::QueryEngine* engine_ = nullptr;
  std::vector<EntryMatch> entries_by_rank_;
  std::vector<int> insertion_;  // per module: its position in module_config_dict[its level]
  int level_sizes_[2] = {0, 0}; // modules (or objects) claimed at the name and type levels
  std::vector<std::vector<int>> objects_by_rank_; // module objects each ranked entry matches
  std::vector<int> object_insertion_;             // insertion_ per module object
  Resolution out_;
};

} // namespace

bool decider_null(const config::ConfigDocument& doc, const Decider& d) {
  switch (d.kind) {
  case Decider::Kind::DefaultGlobal:
    return false;
  case Decider::Kind::Global:
    return global_config_of(doc, d.object).global_config_null;
  case Decider::Kind::Key:
    return doc.keys[static_cast<std::size_t>(d.key)].null_value;
  }
  return false;
}

Resolution resolve_quantizer(const ConfigDocument& document, const index::Index& index,
                             const index::QueryEngine* engine, int object) {
  Resolution out = Resolver(document, index, engine, object).run();
  out.object = object;
  return out;
}

bool resolves_in_graph_mode(const ConfigDocument& document, const index::Index& index) {
  if (document.root != config::Compressor::Quantizer || index.mode != index::Mode::Graph)
    return false;
  return coreai::config_mode(document.root, document.execution_mode) == index::Mode::Graph;
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
    return global_config_of(document, decider.object).global_config_range
               ? global_config_of(document, decider.object).global_config_range->start.line
               : -1;
  case Decider::Kind::Key:
    return document.keys[static_cast<std::size_t>(decider.key)].range.start.line;
  }
  return -1;
}

} // namespace opscope::resolve
