#include "opscope/config/python_calls.h"

#include "opscope/config/python_syntax.h"

#include <algorithm>

namespace opscope::config {
namespace {

using detail::field;
using detail::is;
using detail::named_children;

class CallReader {
public:
  CallReader(std::string_view text, const std::vector<std::string>& functions)
      : source_(text), text_(text), functions_(functions) {}

  PythonCalls read() {
    bool wanted = text_.find("from_pretrained") != std::string_view::npos;
    for (const std::string& f : functions_)
      wanted = wanted || (!f.empty() && text_.find(f) != std::string_view::npos);
    if (!wanted)
      return std::move(out_);
    detail::PythonTree tree = detail::parse_python(text_);
    // A call being typed at the end of the file (`LoraConfig(target_modules=["q_`): read again
    // with its string and brackets closed, as an editor's half-typed text needs.
    std::string closed;
    if (tree && ts_node_has_error(ts_tree_root_node(tree.get()))) {
      closed = std::string(text_) + detail::closers(text_);
      if (closed.size() > text_.size()) {
        if (detail::PythonTree again = detail::parse_python(closed)) {
          tree = std::move(again);
          text_ = closed; // the added closers are past every range read from the original
        }
      }
    }
    if (!tree) {
      out_.problems.push_back(
          {{}, "this Python file took too long to read; opscope reads no config in it", "syntax"});
      return std::move(out_);
    }
    walk(ts_tree_root_node(tree.get()));
    return std::move(out_);
  }

private:
  std::string_view text_of(TSNode n) const { return detail::text_of(text_, n); }
  Range range_of(TSNode n) const { return detail::range_of(source_, n, text_.size()); }

  // Depth and size limits: one problem, then nothing more is read below.
  bool over_limit(TSNode n, int depth) {
    if (depth <= kMaxNesting && values_ < kMaxPythonValues && out_.calls.size() < kMaxPythonCalls)
      return false;
    if (!reported_limit_) {
      reported_limit_ = true;
      out_.problems.push_back(
          depth > kMaxNesting ? detail::too_deep(range_of(n))
                              : SyntaxProblem{range_of(n),
                                              "this Python file holds too many calls or values; "
                                              "opscope reads the first ones only",
                                              "too-large"});
    }
    return true;
  }

  // Every node is visited with an explicit stack: a deeply nested file costs no C++ stack.
  void walk(TSNode root) {
    std::vector<TSNode> stack{root};
    while (!stack.empty()) {
      TSNode n = stack.back();
      stack.pop_back();
      if (is(n, "call"))
        call(n);
      std::vector<TSNode> children = named_children(n);
      for (auto it = children.rbegin(); it != children.rend(); ++it)
        stack.push_back(*it);
    }
  }

  void call(TSNode n) {
    TSNode function = field(n, "function");
    TSNode name = is(function, "attribute") ? field(function, "attribute") : function;
    if (!is(name, "identifier"))
      return;
    std::string_view called = text_of(name);
    TSNode arguments = field(n, "arguments");
    if (ts_node_is_null(arguments) || !is(arguments, "argument_list"))
      return;
    if (called == "from_pretrained") {
      pretrained(function, arguments);
      return;
    }
    if (std::find(functions_.begin(), functions_.end(), called) == functions_.end())
      return;
    if (over_limit(n, 0))
      return;
    PythonCall c;
    c.function = std::string(called);
    c.range = range_of(n);
    c.function_range = range_of(function);
    c.arguments = std::make_unique<Node>();
    c.arguments->kind = Node::Kind::Map;
    c.arguments->model = c.function;
    c.arguments->range = range_of(arguments);
    for (TSNode a : named_children(arguments)) {
      if (!is(a, "keyword_argument")) {
        c.arguments->partial = true; // positional, *args, **kwargs: values not seen by name
        continue;
      }
      TSNode key = field(a, "name");
      TSNode v = field(a, "value");
      if (ts_node_is_null(key))
        continue;
      Entry e;
      e.key = std::string(text_of(key));
      e.key_range = range_of(key);
      e.key_type = ScalarType::Str;
      e.has_colon = true;
      e.key_cols.resize(e.key.size() + 1);
      for (std::size_t i = 0; i < e.key_cols.size(); ++i)
        e.key_cols[i] = e.key_range.start.byte_col + static_cast<int>(i);
      if (!ts_node_is_null(v))
        e.value = value(v, 1);
      c.arguments->entries.push_back(std::move(e));
    }
    out_.calls.push_back(std::move(c));
  }

  void pretrained(TSNode function, TSNode arguments) {
    TSNode argument{};
    for (TSNode a : named_children(arguments)) {
      if (is(a, "keyword_argument")) {
        if (text_of(field(a, "name")) == "pretrained_model_name_or_path")
          argument = field(a, "value");
        continue;
      }
      if (ts_node_is_null(argument))
        argument = a;
      break;
    }
    if (ts_node_is_null(argument) || !is(argument, "string"))
      return;
    std::optional<detail::StringLiteral> s = detail::read_string(text_, argument);
    if (!s || s->formatted || out_.pretrained.size() >= kMaxPythonCalls)
      return;
    TSNode owner = is(function, "attribute") ? field(function, "object") : TSNode{};
    out_.pretrained.push_back(
        {std::move(s->value), source_.range(s->quote_begin, s->end),
         ts_node_is_null(owner) ? std::string() : std::string(text_of(owner))});
  }

  std::unique_ptr<Node> expression(TSNode n, std::unique_ptr<Node> node) {
    node->kind = Node::Kind::Scalar;
    node->quoted = true;
    node->type = ScalarType::Expression;
    node->scalar = std::string(text_of(n).substr(0, 200)); // for messages only
    node->items.clear();
    node->entries.clear();
    return node;
  }

  std::unique_ptr<Node> value(TSNode n, int depth) {
    ++values_;
    auto node = std::make_unique<Node>();
    node->range = range_of(n);
    if (over_limit(n, depth))
      return expression(n, std::move(node));
    while (is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
      n = ts_node_named_child(n, 0);
    if (is(n, "none"))
      return node; // Null
    if (is(n, "list") || is(n, "tuple") || is(n, "set")) {
      node->kind = Node::Kind::Seq;
      for (TSNode item : named_children(n)) {
        if (is(item, "list_splat"))
          return expression(n, std::move(node)); // `[*names]`: its items are unknown
        node->items.push_back(value(item, depth + 1));
      }
      return node;
    }
    if (is(n, "dictionary")) {
      node->kind = Node::Kind::Map;
      for (TSNode item : named_children(n)) {
        TSNode key = is(item, "pair") ? field(item, "key") : TSNode{};
        Node literal;
        if (ts_node_is_null(key) || !detail::python_literal(text_, key, literal) ||
            literal.type == ScalarType::Bool) {
          node->partial = true; // `**other`, a computed key
          continue;
        }
        Entry e;
        e.key = std::move(literal.scalar);
        e.key_type = literal.type;
        e.key_range = range_of(key);
        e.quoted = literal.type == ScalarType::Str;
        e.has_colon = true;
        if (std::optional<detail::StringLiteral> s =
                e.quoted ? detail::read_string(text_, key) : std::nullopt) {
          e.quote = s->quote;
          e.raw = s->raw;
          e.key_cols = detail::columns_of(source_, s->offsets);
        } else {
          e.key_cols.assign(e.key.size() + 1, e.key_range.start.byte_col);
        }
        TSNode v = field(item, "value");
        if (!ts_node_is_null(v))
          e.value = value(v, depth + 1);
        node->entries.push_back(std::move(e));
      }
      return node;
    }
    if (detail::python_literal(text_, n, *node)) {
      if (node->type == ScalarType::Str)
        if (std::optional<detail::StringLiteral> s = detail::read_string(text_, n))
          node->range = source_.range(s->quote_begin, s->end); // after any prefix (r"...")
      return node;
    }
    return expression(n, std::move(node));
  }

  detail::SourceText source_; // over the original text: closers only ever follow it
  std::string_view text_;
  const std::vector<std::string>& functions_;
  PythonCalls out_;
  std::size_t values_ = 0;
  bool reported_limit_ = false;
};

} // namespace

PythonCalls read_python_calls(std::string_view text, const std::vector<std::string>& functions) {
  return CallReader(text, functions).read();
}

const PretrainedName* loaded_model(const PythonCalls& calls) {
  for (const PretrainedName& p : calls.pretrained)
    if (p.owner.find("Tokenizer") == std::string::npos &&
        p.owner.find("Processor") == std::string::npos &&
        p.owner.find("Config") == std::string::npos)
      return &p;
  return nullptr;
}

} // namespace opscope::config
