#include "matching.h"

#include <algorithm>
#include <functional>

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

bool contains_module(const index::Op& op,
                     const std::function<bool(const index::ModuleContext&)>& f) {
  return std::any_of(op.module_stack.begin(), op.module_stack.end(), f);
}

// Whether a selected module is on an op's stack. Ops in graph order mostly share
// their stack with the op before, so each depth's answer is kept for the next op
// while the module there stays the same: looking every name up again was most
// of a hover on a large model.
class SelectedOnStack {
public:
  SelectedOnStack(const index::Index& index, const std::vector<char>& selected)
      : index_(index), selected_(selected) {}

  bool operator()(const index::Op& op) {
    if (memo_.size() < op.module_stack.size())
      memo_.resize(op.module_stack.size());
    for (std::size_t depth = 0; depth < op.module_stack.size(); ++depth) {
      const std::string& name = op.module_stack[depth].name;
      Seen& seen = memo_[depth];
      if (!seen.name || *seen.name != name) {
        const index::Module* mod = index_.find_module(name);
        seen = {&name, mod && selected_[static_cast<std::size_t>(mod - index_.modules.data())]};
      }
      if (seen.selected)
        return true;
    }
    return false;
  }

private:
  struct Seen {
    const std::string* name = nullptr; // the module at this depth for the op before
    bool selected = false;
  };
  const index::Index& index_;
  const std::vector<char>& selected_;
  std::vector<Seen> memo_;
};

} // namespace

CompiledPattern compile_pattern(const std::string& pattern) {
  CompiledPattern out;
  auto query = std::make_unique<index::Query>(index::QueryKind::ModuleName, pattern);
  const index::PatternStatus& status = query->status();
  if (status.ok()) {
    out.re = std::move(query);
    return out;
  }
  out.status = status.kind == index::PatternStatus::Kind::PythonOnly
                   ? CompiledPattern::Status::PythonOnly
                   : CompiledPattern::Status::Invalid;
  out.error = status.reason;
  out.error_offset = status.offset < 0 ? 0 : static_cast<std::size_t>(status.offset);
  // RE2 names the whole pattern for unbalanced parentheses: point at the culprit.
  if (status.reason.rfind("missing )", 0) == 0)
    out.error_offset = unmatched_paren(pattern, true);
  else if (status.reason.rfind("unexpected )", 0) == 0)
    out.error_offset = unmatched_paren(pattern, false);
  return out;
}

bool full_match(const index::Query& re, const std::string& text) {
  return re.matches(text);
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

std::vector<int> ops_in_scope(const index::Index& index, const config::Scope& scope) {
  std::vector<int> out;
  std::unique_ptr<index::Query> scope_re;
  if (scope.kind == config::Scope::Kind::ModuleName) {
    CompiledPattern c = compile_pattern(scope.key);
    scope_re = std::move(c.re); // an invalid scope pattern limits nothing (it is reported itself)
  }
  for (std::size_t i = 0; i < index.ops.size(); ++i) {
    const index::Op& op = index.ops[i];
    if (op.kind != index::OpKind::Call)
      continue;
    bool inside = true;
    if (scope.kind == config::Scope::Kind::ModuleType)
      inside =
          contains_module(op, [&](const index::ModuleContext& m) { return m.type == scope.key; });
    else if (scope.kind == config::Scope::Kind::ModuleName && scope_re)
      inside = contains_module(
          op, [&](const index::ModuleContext& m) { return full_match(*scope_re, m.name); });
    if (inside)
      out.push_back(static_cast<int>(i));
  }
  return out;
}

Matches match_key(const index::Index& index, const config::PatternKey& key,
                  index::Compressor compressor) {
  Matches m;
  using config::Table;
  if (key.table == Table::ModuleName || key.table == Table::ModuleType) {
    std::unique_ptr<index::Query> re;
    if (key.table == Table::ModuleName) {
      CompiledPattern c = compile_pattern(key.text);
      if (!c.re) {
        m.evaluated = false;
        return m;
      }
      re = std::move(c.re);
    }
    std::vector<char> selected(index.modules.size(), 0);
    for (std::size_t i = 0; i < index.modules.size(); ++i) {
      const index::Module& mod = index.modules[i];
      bool hit = re ? full_match(*re, mod.name) : mod.type == key.text;
      if (hit) {
        selected[i] = 1;
        m.modules.push_back(static_cast<int>(i));
      }
    }
    if (m.modules.empty())
      return m; // no module selected: no op inside one
    SelectedOnStack inside(index, selected);
    for (std::size_t i = 0; i < index.ops.size(); ++i) {
      const index::Op& op = index.ops[i];
      if (op.kind == index::OpKind::Call && inside(op))
        m.ops.push_back(static_cast<int>(i));
    }
    return m;
  }
  std::unique_ptr<index::Query> re;
  if (key.table == Table::OpName) {
    CompiledPattern c = compile_pattern(key.text);
    if (!c.re) {
      m.evaluated = false;
      return m;
    }
    re = std::move(c.re);
  }
  for (int i : ops_in_scope(index, key.scope)) {
    const index::Op& op = index.ops[static_cast<std::size_t>(i)];
    if (re ? full_match(*re, op.name) : index.type_for(op, compressor) == key.text)
      m.ops.push_back(i);
  }
  return m;
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
