#include "matching.h"

#include <algorithm>
#include <functional>
#include <optional>

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

// Whether a module on an op's stack satisfies a test. Ops in graph order mostly
// share their stack with the op before, so each depth's answer is kept for the
// next op while the module there stays the same: testing every stack entry of
// every op again (a hash lookup or a regex each) was most of a hover or a check.
class StackTest {
public:
  using Field = const std::string index::ModuleContext::*;
  // `test` reads only `field` of the module (its name or its type).
  StackTest(Field field, std::function<bool(const std::string&)> test)
      : field_(field), test_(std::move(test)) {}

  bool operator()(const index::Op& op) {
    if (memo_.size() < op.module_stack.size())
      memo_.resize(op.module_stack.size());
    for (std::size_t depth = 0; depth < op.module_stack.size(); ++depth) {
      const std::string& value = op.module_stack[depth].*field_;
      Seen& seen = memo_[depth];
      if (!seen.value || *seen.value != value)
        seen = {&value, test_(value)};
      if (seen.passed)
        return true;
    }
    return false;
  }

private:
  struct Seen {
    const std::string* value = nullptr; // at this depth, for the op before
    bool passed = false;
  };
  Field field_;
  std::function<bool(const std::string&)> test_;
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
  std::optional<StackTest> in_scope;
  if (scope.kind == config::Scope::Kind::ModuleType)
    in_scope.emplace(&index::ModuleContext::type,
                     [&](const std::string& type) { return type == scope.key; });
  else if (scope.kind == config::Scope::Kind::ModuleName && scope_re)
    in_scope.emplace(&index::ModuleContext::name,
                     [&](const std::string& name) { return full_match(*scope_re, name); });
  for (std::size_t i = 0; i < index.ops.size(); ++i) {
    const index::Op& op = index.ops[i];
    if (op.kind == index::OpKind::Call && (!in_scope || (*in_scope)(op)))
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
    StackTest inside(&index::ModuleContext::name, [&](const std::string& name) {
      const index::Module* mod = index.find_module(name);
      return mod && selected[static_cast<std::size_t>(mod - index.modules.data())];
    });
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
