#include "matching.h"

#include "opscope/index/named_modules.h"

#include <algorithm>
#include <iterator>

namespace opscope::features::detail {
namespace {

std::size_t unmatched_paren(const std::string& p, bool open) {
  std::vector<std::size_t> stack;
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (in_class) {
      in_class = c != ']';
      continue;
    }
    if (c == '[')
      in_class = true;
    else if (c == '(')
      stack.push_back(i);
    else if (c == ')') {
      if (stack.empty()) {
        if (!open)
          return i;
      } else {
        stack.pop_back();
      }
    }
  }
  if (open && !stack.empty())
    return stack.back();
  return 0;
}

// Every call op, in graph order.
std::vector<int> all_call_ops(const index::Index& index) {
  std::vector<int> out;
  for (std::size_t i = 0; i < index.ops.size(); ++i)
    if (index.ops[i].kind == index::OpKind::Call)
      out.push_back(static_cast<int>(i));
  return out;
}

// The engine lists ops in coreai-opt's order (module by module); the features list them
// in graph order, as the model file and the summary do.
std::vector<int> in_graph_order(std::vector<int> ops) {
  std::sort(ops.begin(), ops.end());
  return ops;
}

// Ops that are in both sorted lists.
std::vector<int> intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// A name key matches what build_module_config_dict matches: every name of every object in
// named_modules() (aliases, containers such as `model.layers` that forward() never calls), and
// applies to the object's subtree. Adds to `m` the tree modules that reach shows and the
// tree's names alone do not: calls made under another name of a matched object, and the
// nearest calls below a matched container; with every call op inside them.
void add_named_module_matches(const index::QueryEngine& engine, const index::Query& query,
                              Matches& m) {
  const index::Index& index = engine.index();
  const auto& outside = index.names_outside_tree();
  if (std::none_of(outside.begin(), outside.end(),
                   [&](const auto& name) { return query.matches(name.first); }))
    return; // every name it matches is in the tree: engine.match saw them all
  std::vector<int> ops = m.ops;
  bool added = false;
  for (int module : index::modules_reached(index, index::objects_matching(engine, query))) {
    const std::string& name = index.modules[static_cast<std::size_t>(module)].name;
    if (query.matches(name) || name.empty())
      continue; // matched by its own name already (the root holds everything anyway)
    std::vector<int> inside =
        engine.match(*engine.query(index::Table::ModuleName, escape_regex(name)));
    ops.insert(ops.end(), inside.begin(), inside.end());
    m.modules.push_back(module);
    added = true;
  }
  if (!added)
    return;
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  m.ops = std::move(ops);
}

} // namespace

CompiledPattern compile_pattern(const std::string& pattern, const index::QueryEngine* engine) {
  CompiledPattern out;
  // Without a model (still loading) the pattern is only checked: no match range to find, which
  // would cost two thirds of a compile per key again.
  std::shared_ptr<const index::Query> query =
      engine ? engine->query(index::Table::ModuleName, pattern)
             : std::make_shared<const index::Query>(index::Table::ModuleName, pattern, false);
  const index::PatternStatus& status = query->status();
  if (status.ok()) {
    out.re = std::move(query);
    return out;
  }
  out.status = status.kind;
  out.error = status.reason;
  out.error_offset = status.offset < 0 ? 0 : static_cast<std::size_t>(status.offset);
  // RE2 names the whole pattern for unbalanced parentheses: point at the culprit.
  if (status.reason.rfind("missing )", 0) == 0)
    out.error_offset = unmatched_paren(pattern, true);
  else if (status.reason.rfind("unexpected )", 0) == 0)
    out.error_offset = unmatched_paren(pattern, false);
  return out;
}

std::string escape_regex(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (std::string_view(".^$|?*+()[]{}\\").find(c) != std::string_view::npos)
      out += '\\';
    out += c;
  }
  return out;
}

std::vector<int> ops_in_scope(const index::QueryEngine& engine, const config::Scope& scope) {
  switch (scope.kind) {
  case config::Scope::Kind::Global:
    break;
  case config::Scope::Kind::ModuleType:
    return in_graph_order(engine.match(*engine.query(index::Table::ModuleType, scope.key)));
  case config::Scope::Kind::ModuleName: {
    auto query = engine.query(index::Table::ModuleName, scope.key);
    if (query->usable()) // an invalid scope pattern limits nothing (it is reported itself)
      return in_graph_order(engine.match(*query));
    break;
  }
  }
  return all_call_ops(engine.index());
}

Matches match_key(const ModelQueries& queries, const config::PatternKey& key,
                  index::Compressor compressor, ModuleList list_modules) {
  const index::QueryEngine& engine = *queries;
  Matches m;
  const index::Index& index = engine.index();
  using config::Table;
  if (key.table == Table::ModuleName || key.table == Table::ModuleType) {
    std::shared_ptr<const index::Query> compiled = engine.query(key.table, key.text);
    const index::Query& query = *compiled;
    if (!query.usable()) {
      m.evaluated = false;
      return m;
    }
    // Every call op, whatever the compressor: callers filter with `compressible`.
    m.ops = in_graph_order(engine.match(query));
    if (key.table == Table::ModuleName)
      add_named_module_matches(engine, query, m);
    if (list_modules == ModuleList::IfNoOps && !m.ops.empty())
      return m;
    std::vector<int> by_alias = std::move(m.modules);
    m.modules.clear();
    for (std::size_t i = 0; i < index.modules.size(); ++i) {
      const index::Module& module = index.modules[i];
      if (key.table == Table::ModuleName ? query.matches(module.name) : module.type == key.text)
        m.modules.push_back(static_cast<int>(i));
    }
    if (!by_alias.empty()) {
      m.modules.insert(m.modules.end(), by_alias.begin(), by_alias.end());
      std::sort(m.modules.begin(), m.modules.end());
    }
    return m;
  }
  if (key.table == Table::OpType) {
    // Every call op in scope with the type the compressor registers it under (registered
    // or not: callers filter with `compressible`).
    for (int i : queries.scope_ops(key.scope))
      if (index.type_for(index.ops[static_cast<std::size_t>(i)], compressor) == key.text)
        m.ops.push_back(i);
    return m;
  }
  std::shared_ptr<const index::Query> compiled = engine.query(index::Table::OpName, key.text);
  const index::Query& query = *compiled;
  if (!query.usable()) {
    m.evaluated = false;
    return m;
  }
  m.ops = in_graph_order(engine.match(query)); // call ops only: the global scope's
  if (key.scope.kind != config::Scope::Kind::Global)
    m.ops = intersect(m.ops, queries.scope_ops(key.scope));
  return m;
}

ModelQueries::ModelQueries(const Model& model)
    : engine_(model.queries ? model.queries : &owned_.emplace(*model.index)) {}

const std::vector<int>& ModelQueries::scope_ops(const config::Scope& scope) const {
  auto key = std::make_pair(static_cast<int>(scope.kind), scope.key);
  auto found = scope_ops_.find(key);
  if (found == scope_ops_.end())
    found = scope_ops_.emplace(std::move(key), ops_in_scope(*engine_, scope)).first;
  return found->second;
}

std::vector<int> compressible(const index::Index& index, const std::vector<int>& ops,
                              index::Compressor compressor) {
  std::vector<int> out;
  for (int i : ops)
    if (index.ops[static_cast<std::size_t>(i)].compressible_by(compressor))
      out.push_back(i);
  return out;
}

} // namespace opscope::features::detail
