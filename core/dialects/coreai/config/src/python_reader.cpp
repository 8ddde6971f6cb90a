// Reads the places where a name reaches a coreai-opt config in Python source: the dicts
// passed to the config classes, from_dict's document, the setters' targets. tree-sitter's
// Python grammar parses (it recovers from the broken code of a file being typed); this file
// turns the calls it finds into the tree the YAML reader produces, so classification and
// every feature work unchanged.
#include "python_reader.h"
#include "opscope/config/python_syntax.h"
#include "python_names.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace opscope::config::detail {
namespace {

// QuantizerConfig, ModuleQuantizerConfig, OpQuantizerConfig, ...: coreai::find_config_class
// reads them off the compressor table.
using coreai::ConfigClass;
using coreai::ConfigLevel;

// coreai-opt 0.4.0's other pydantic classes a config holds (specs, granularities, schedules):
// a call of one is read as a mapping of its keyword arguments, named by the class, for
// core/dialects/coreai/schema to check. A class missing here is read as an expression: not checked.
constexpr std::string_view kValueClasses[] = {
    "QuantizationSpec",
    "PalettizationSpec",
    "PruningSpec",
    "QATSchedule",
    "PATSchedule",
    "VectorKMeansConfig",
    "KVCacheQuantConfig",
    "PerTensorGranularity",
    "PerChannelGranularity",
    "PerBlockGranularity",
    "PerGroupedChannelGranularity",
    "DefaultTrainingSpec",
    "Unstructured",
    "ChannelStructured",
    "ConstantSparsitySchedule",
    "PolynomialDecaySchedule",
};

bool is_value_class(std::string_view name) {
  return std::find(std::begin(kValueClasses), std::end(kValueClasses), name) !=
         std::end(kValueClasses);
}

bool is_pattern_field(std::string_view field) {
  return field == "module_name_configs" || field == "module_type_configs" ||
         field == "op_type_config" || field == "op_name_config";
}

class PythonReader {
public:
  explicit PythonReader(const SourceText& source) : source_(source), text_(source.text()) {}

  PythonRead read() {
    auto root = std::make_unique<Node>();
    root->kind = Node::Kind::Map;
    root_ = root.get();
    out_.tree.root = std::move(root);
    if (!worth_parsing())
      return std::move(out_);
    PythonTree tree = parse_python(text_);
    if (!tree) { // timed out
      out_.tree.problems.push_back(
          {{}, "this Python file took too long to read; opscope reads no config in it", "syntax"});
      return std::move(out_);
    }
    TSNode module = ts_tree_root_node(tree.get());
    imports_coreai_ = text_.find("coreai_opt") != std::string_view::npos;
    walk(module, 0);
    if (!served_) { // no import of coreai_opt and no config class in the code
      root_->entries.clear();
      out_.unchecked.clear();
      out_.config_lines.clear();
      out_.tree.from_dict.clear();
    }
    return std::move(out_);
  }

private:
  // A file that names neither coreai_opt nor a config class is not parsed at all.
  bool worth_parsing() {
    std::size_t first = std::string_view::npos;
    for (const coreai::CompressorInfo& info : coreai::compressors())
      if (std::size_t at = text_.find(coreai::config_class(info, ConfigLevel::Top)); at < first) {
        first = at;
        fallback_ = info.id;
      }
    return first != std::string_view::npos || text_.find("coreai_opt") != std::string_view::npos;
  }

  std::string_view text_of(TSNode n) const { return detail::text_of(text_, n); }
  Range range_of(TSNode n) const { return detail::range_of(source_, n, text_.size()); }

  bool too_deep(TSNode n, int depth) {
    if (depth <= kMaxNesting)
      return false;
    if (!reported_too_deep_) {
      reported_too_deep_ = true;
      out_.tree.problems.push_back(detail::too_deep(range_of(n)));
    }
    return true;
  }

  // The lines of the whole statement holding a config call (its closing bracket included).
  void note_statement(TSNode n) {
    for (TSNode parent = ts_node_parent(n);
         !ts_node_is_null(parent) && !is(parent, "module") && !is(parent, "block");
         parent = ts_node_parent(parent))
      n = parent;
    Range r = range_of(n);
    if (!out_.config_lines.empty() && out_.config_lines.back().second >= r.start.line)
      out_.config_lines.back().second = std::max(out_.config_lines.back().second, r.end.line);
    else
      out_.config_lines.push_back({r.start.line, r.end.line});
  }

  // The config class a call's function names (`QuantizerConfig`, `coreai_opt.x.QuantizerConfig`).
  std::optional<ConfigClass> class_of(TSNode function) const {
    if (is(function, "identifier"))
      return coreai::find_config_class(text_of(function));
    if (is(function, "attribute"))
      return coreai::find_config_class(text_of(field(function, "attribute")));
    return std::nullopt;
  }

  // Which compressor an expression's value configures: a config class call, a preset
  // (`QuantizerConfig.presets.w4()`), a chain of setters on one, or a variable bound to one.
  std::optional<Compressor> compressor_of(TSNode n, int depth = 0) const {
    for (; depth < 64 && !ts_node_is_null(n); ++depth) {
      if (is(n, "identifier")) {
        if (std::optional<ConfigClass> c = coreai::find_config_class(text_of(n));
            c && c->level == ConfigLevel::Top)
          return c->id;
        auto it = variables_.find(std::string(text_of(n)));
        if (it != variables_.end())
          return it->second;
        return std::nullopt;
      }
      if (is(n, "call"))
        n = field(n, "function");
      else if (is(n, "attribute"))
        n = field(n, "object");
      else if (is(n, "parenthesized_expression"))
        n = ts_node_named_child(n, 0);
      else
        return std::nullopt;
    }
    return std::nullopt;
  }

  // A call by its extent: a chain's calls start at the same byte.
  static std::uint64_t call_id(TSNode call) {
    return (std::uint64_t{ts_node_start_byte(call)} << 32) | ts_node_end_byte(call);
  }
  int new_object(TSNode call) { return object_of_call_[call_id(call)] = objects_++; }

  // The config object an expression's value is, if a config call or a variable bound to one.
  std::optional<int> object_of(TSNode n) const {
    while (!ts_node_is_null(n) && is(n, "parenthesized_expression"))
      n = ts_node_named_child(n, 0);
    if (ts_node_is_null(n))
      return std::nullopt;
    if (is(n, "call"))
      if (auto it = object_of_call_.find(call_id(n)); it != object_of_call_.end())
        return it->second;
    if (is(n, "identifier"))
      if (auto it = object_of_variable_.find(std::string(text_of(n)));
          it != object_of_variable_.end())
        return it->second;
    return std::nullopt;
  }

  // The object a setter changes: its receiver's, else one per receiver written the same way.
  int receiver_object(TSNode receiver) {
    if (std::optional<int> known = object_of(receiver))
      return *known;
    auto [it, inserted] = object_of_receiver_.emplace(std::string(text_of(receiver)), objects_);
    if (inserted)
      ++objects_;
    return it->second;
  }

  void walk(TSNode n, int depth) {
    if (too_deep(n, depth))
      return;
    if (is(n, "import_from_statement") || is(n, "import_statement")) {
      if (text_of(n).find("coreai_opt") != std::string_view::npos)
        served_ = true;
      return;
    }
    if (is(n, "assignment")) {
      TSNode left = field(n, "left"), right = field(n, "right");
      if (is(left, "identifier")) {
        if (auto c = compressor_of(right))
          variables_[std::string(text_of(left))] = *c;
        else
          variables_.erase(std::string(text_of(left)));
        for (TSNode child : named_children(n))
          walk(child, depth + 1);
        // Bound after the right side is read: `config = config.set_module_name(...)` keeps it.
        if (std::optional<int> object = object_of(right))
          object_of_variable_[std::string(text_of(left))] = *object;
        else
          object_of_variable_.erase(std::string(text_of(left)));
        return;
      }
    }
    if (is(n, "call") && call(n, depth))
      return;
    if (is(n, "ERROR"))
      broken_call(n);
    for (TSNode child : named_children(n))
      walk(child, depth + 1);
  }

  // A config class call still being typed (`QuantizerConfig(module_name_configs={"lay`) is no
  // call node yet, only its tokens in an error: its class still names the document's compressor.
  void broken_call(TSNode error) {
    TSTreeCursor cursor = ts_tree_cursor_new(error);
    TSNode previous{};
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      do {
        TSNode child = ts_tree_cursor_current_node(&cursor);
        if (is(child, "(") && is(previous, "identifier"))
          if (std::optional<ConfigClass> c = coreai::find_config_class(text_of(previous));
              c && c->level == ConfigLevel::Top) {
            served_ = true;
            note_statement(previous);
            add_top(c->id, previous).config_object = objects_++;
          }
        previous = child;
      } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
  }

  // Adds a top config for `compressor` to the document; `where` names it (the class or setter).
  Node& add_top(Compressor compressor, TSNode where) {
    Entry e;
    e.key = std::string(coreai::find(compressor)->root_key);
    e.key_range = range_of(where);
    e.value = std::make_unique<Node>();
    e.value->kind = Node::Kind::Map;
    e.value->range = e.key_range;
    root_->entries.push_back(std::move(e));
    return *root_->entries.back().value;
  }

  // True when the call is a config site (read whole here, not walked further).
  bool call(TSNode n, int depth) {
    TSNode function = field(n, "function");
    TSNode arguments = field(n, "arguments");
    if (std::optional<ConfigClass> c = class_of(function)) {
      served_ = true;
      if (c->level == ConfigLevel::Op)
        return detached_value(n, depth); // its fields are specs: no names
      note_statement(n);
      TSNode name = is(function, "attribute") ? field(function, "attribute") : function;
      if (c->level == ConfigLevel::Top) {
        Node& top = add_top(c->id, name);
        top.config_object = new_object(n);
        top.model = coreai::config_class(*coreai::find(c->id), ConfigLevel::Top);
        top.range = range_of(arguments);
        keyword_fields(arguments, top, depth + 1, true);
      } else {
        Node& top = add_top(c->id, name);
        top.config_object = new_object(n);
        Entry e = field_entry(kDetachedModuleConfig, name);
        e.has_colon = false;
        e.value = value(n, "", depth + 1);
        top.entries.push_back(std::move(e));
      }
      return true;
    }
    if (is(function, "identifier") && is_value_class(text_of(function)))
      return detached_value(n, depth);
    if (!is(function, "attribute"))
      return false;
    if (is_value_class(text_of(field(function, "attribute"))))
      return detached_value(n, depth);
    TSNode method = field(function, "attribute");
    TSNode receiver = field(function, "object");
    std::string_view name = text_of(method);
    if (name == "from_dict") {
      std::optional<ConfigClass> c = class_of(receiver);
      if (!c || c->level != ConfigLevel::Top)
        return false;
      served_ = true;
      note_statement(n);
      std::vector<TSNode> args = named_children(arguments);
      if (!args.empty()) {
        std::unique_ptr<Node> document = value(args[0], "", depth + 1);
        if (document && document->kind == Node::Kind::Map && document->model.empty() &&
            !document->partial) {
          FromDict site;
          site.first = root_->entries.size();
          site.count = document->entries.size();
          site.config_key = std::string(coreai::find(c->id)->root_key);
          site.range = range_of(n);
          out_.tree.from_dict.push_back(std::move(site));
        }
        int object = new_object(n);
        if (document && document->kind == Node::Kind::Map)
          for (Entry& e : document->entries) {
            if (e.value)
              e.value->config_object = object;
            root_->entries.push_back(std::move(e));
          }
      }
      return true;
    }
    bool by_name = name == "set_module_name", by_type = name == "set_module_type";
    bool only_for = name == "only_for", without = name == "without", global = name == "set_global";
    if (!by_name && !by_type && !only_for && !without && !global)
      return false;
    std::optional<Compressor> compressor = compressor_of(receiver);
    if (compressor)
      served_ = true;
    else if (served_ || imports_coreai_)
      compressor = fallback_;
    if (!compressor)
      return false;
    walk(receiver, depth + 1); // a chain: `QuantizerConfig(...).set_module_name(...)`
    note_statement(n);
    Node& top = add_top(*compressor, method);
    top.config_object = object_of_call_[call_id(n)] = receiver_object(receiver);
    std::vector<TSNode> args = named_children(arguments);
    auto argument = [&](std::size_t position, std::string_view keyword) -> TSNode {
      for (TSNode a : args)
        if (is(a, "keyword_argument") && text_of(field(a, "name")) == keyword)
          return field(a, "value");
      if (position < args.size() && !is(args[position], "keyword_argument"))
        return args[position];
      return TSNode{};
    };
    if (global) {
      Entry e = field_entry("global_config", method);
      TSNode config = argument(0, "config");
      if (!ts_node_is_null(config))
        e.value = value(config, "", depth + 1);
      top.entries.push_back(std::move(e));
      return true;
    }
    if (by_name || by_type) {
      TSNode target = argument(0, by_name ? "module_name" : "module_type");
      TSNode config = argument(1, "config");
      Entry table = field_entry(by_name ? "module_name_configs" : "module_type_configs", method);
      table.value = std::make_unique<Node>();
      table.value->kind = Node::Kind::Map;
      if (!ts_node_is_null(target))
        if (std::optional<Entry> key = key_entry(target, by_type)) {
          if (!ts_node_is_null(config))
            key->value = value(config, "", depth + 1);
          key->has_colon = !ts_node_is_null(config);
          table.value->entries.push_back(std::move(*key));
        }
      top.entries.push_back(std::move(table));
      return true;
    }
    // only_for / without: strings are module names, classes module types; one list or tuple
    // may hold them all.
    std::vector<TSNode> targets;
    for (TSNode a : args)
      if (!is(a, "keyword_argument"))
        targets.push_back(a);
    if (targets.size() == 1 && (is(targets[0], "list") || is(targets[0], "tuple")))
      targets = named_children(targets[0]);
    Entry names = field_entry("module_name_configs", method);
    Entry types = field_entry("module_type_configs", method);
    for (Entry* table : {&names, &types}) {
      table->value = std::make_unique<Node>();
      table->value->kind = Node::Kind::Map;
    }
    for (TSNode target : targets) {
      bool string = is(target, "string") || is(target, "concatenated_string");
      if (std::optional<Entry> key = key_entry(target, !string)) {
        key->has_colon = true;
        if (only_for) { // the former global config: not null
          key->value = std::make_unique<Node>();
          key->value->kind = Node::Kind::Scalar;
          key->value->quoted = true;
          key->value->scalar = "global_config";
        }
        (string ? names : types).value->entries.push_back(std::move(*key));
      }
    }
    top.entries.push_back(std::move(names));
    top.entries.push_back(std::move(types));
    return true;
  }

  // A class call holding no names, outside any config (`w = QuantizationSpec(dtype="int4")`):
  // kept for the schema check of its arguments.
  bool detached_value(TSNode call, int depth) {
    note_statement(call);
    Entry e = field_entry(kDetachedValue, field(call, "function"));
    e.value = value(call, "", depth + 1);
    root_->entries.push_back(std::move(e));
    return true;
  }

  Entry field_entry(std::string_view name, TSNode where) const {
    Entry e;
    e.key = std::string(name);
    e.key_range = range_of(where);
    e.key_cols.assign(e.key.size() + 1, e.key_range.start.byte_col);
    return e;
  }

  // The keyword arguments of a call, as the fields of a mapping. A class takes keywords only: a
  // positional argument is kept as an entry without a colon (the name of a keyword being typed,
  // or an error); `dict(mapping)` and `**kwargs` pass entries the reader cannot see.
  void keyword_fields(TSNode arguments, Node& map, int depth, bool class_call) {
    if (too_deep(arguments, depth))
      return;
    for (TSNode a : named_children(arguments)) {
      if (!is(a, "keyword_argument")) {
        if (!class_call || is(a, "dictionary_splat") || is(a, "list_splat")) {
          map.partial = true;
          continue;
        }
        Entry e;
        e.key = is(a, "identifier") ? std::string(text_of(a)) : std::string();
        e.key_range = range_of(a);
        e.key_type = ScalarType::Str;
        e.key_cols.resize(e.key.size() + 1);
        for (std::size_t i = 0; i < e.key_cols.size(); ++i)
          e.key_cols[i] = e.key_range.start.byte_col + static_cast<int>(i);
        map.entries.push_back(std::move(e));
        continue;
      }
      TSNode name = field(a, "name");
      TSNode v = field(a, "value");
      if (ts_node_is_null(name))
        continue;
      Entry e;
      e.key = std::string(text_of(name));
      e.key_range = range_of(name);
      e.key_type = ScalarType::Str;
      e.key_cols.resize(e.key.size() + 1);
      for (std::size_t i = 0; i < e.key_cols.size(); ++i)
        e.key_cols[i] = e.key_range.start.byte_col + static_cast<int>(i);
      e.has_colon = true;
      if (!ts_node_is_null(v))
        e.value = value(v, e.key, depth + 1);
      map.entries.push_back(std::move(e));
    }
  }

  void unchecked(TSNode n, std::string what) {
    out_.unchecked.push_back({range_of(n), std::move(what)});
  }

  // A key naming part of the model: a string literal, or a torch.nn class for module types.
  // Anything else is reported as not checked and gives no key.
  std::optional<Entry> key_entry(TSNode n, bool module_type) {
    while (is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
      n = ts_node_named_child(n, 0);
    if (is(n, "string")) {
      std::optional<StringLiteral> s = read_string(text_, n);
      if (!s)
        return std::nullopt;
      if (s->formatted) {
        unchecked(n, "an f-string");
        return std::nullopt;
      }
      Entry e;
      e.key = std::move(s->value);
      e.key_range = source_.range(s->quote_begin, s->end);
      e.quoted = true;
      e.quote = s->quote;
      e.raw = s->raw;
      e.key_cols = columns_of(source_, s->offsets);
      return e;
    }
    if (is(n, "concatenated_string")) {
      unchecked(n, "an implicitly concatenated string");
      return std::nullopt;
    }
    if (module_type && (is(n, "attribute") || is(n, "identifier"))) {
      std::string_view written = text_of(n);
      std::string_view class_name = is(n, "attribute") ? text_of(field(n, "attribute")) : written;
      std::string_view owner = written.substr(0, written.size() - class_name.size());
      bool from_torch_nn = owner.empty() || owner == "nn." || owner == "torch.nn.";
      if (auto qualified = torch_nn_qualified_name(class_name); qualified && from_torch_nn) {
        Entry e;
        e.key = std::string(*qualified);
        e.key_range = range_of(n);
        // No column is a character of the name: no completion offered in code.
        e.key_cols.assign(e.key.size() + 1, -1);
        return e;
      }
      unchecked(n, is(n, "identifier") ? "a variable or a class opscope cannot name"
                                       : "a class opscope cannot name");
      return std::nullopt;
    }
    unchecked(n, is(n, "identifier") ? "a variable" : "an expression");
    return std::nullopt;
  }

  bool literal(TSNode n, Node& node) const { return python_literal(text_, n, node); }

  // An argument's value as a node: dicts and class calls as mappings, lists and tuples as
  // sequences, None as null, literals typed; anything else is an expression (not checked).
  std::unique_ptr<Node> value(TSNode n, std::string_view field_name, int depth) {
    auto node = std::make_unique<Node>();
    node->range = range_of(n);
    if (too_deep(n, depth)) {
      node->kind = Node::Kind::Scalar;
      node->quoted = true;
      node->type = ScalarType::Expression;
      return node;
    }
    while (is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
      n = ts_node_named_child(n, 0);
    bool patterns = is_pattern_field(field_name);
    bool module_type = field_name == "module_type_configs";
    if (is(n, "none"))
      return node;
    if (is(n, "dictionary") || is(n, "set")) {
      node->kind = Node::Kind::Map;
      for (TSNode item : named_children(n)) {
        TSNode key = is(item, "pair") ? field(item, "key") : item;
        if (is(item, "dictionary_splat") || ts_node_is_null(key)) {
          node->partial = true;
          continue;
        }
        std::optional<Entry> e;
        Node number;
        if (literal(key, number) && number.type == ScalarType::Int) {
          e.emplace(); // an input index (`op_input_spec={0: ...}`), or an error coreai-opt sees
          e->key = number.scalar;
          e->key_range = range_of(key);
          e->key_cols.assign(e->key.size() + 1, e->key_range.start.byte_col);
          e->key_type = ScalarType::Int;
        } else if (patterns) {
          e = key_entry(key, module_type);
        } else if (is(key, "string")) {
          // A field name (from_dict's document, an op_state_spec, ...): read, never reported.
          if (std::optional<StringLiteral> s = read_string(text_, key); s && !s->formatted) {
            // Its range is the text between the quotes: a fix for a misspelt field
            // replaces the name and keeps the quotes.
            e.emplace();
            e->key = std::move(s->value);
            e->key_range = source_.range(s->offsets.front(), s->offsets.back());
            e->key_cols = columns_of(source_, s->offsets);
          }
        }
        if (!e) {
          node->partial = true;
          continue;
        }
        if (e->key_type == ScalarType::Untyped)
          e->key_type = ScalarType::Str;
        if (is(item, "pair")) {
          e->has_colon = true;
          TSNode v = field(item, "value");
          if (!ts_node_is_null(v))
            e->value =
                value(v, patterns ? std::string_view() : std::string_view(e->key), depth + 1);
        }
        node->entries.push_back(std::move(*e));
      }
      return node;
    }
    if (is(n, "list") || is(n, "tuple")) {
      node->kind = Node::Kind::Seq;
      for (TSNode item : named_children(n)) {
        if (is(item, "list_splat")) { // `[*names]`: its length is unknown
          node->kind = Node::Kind::Scalar;
          node->quoted = true;
          node->type = ScalarType::Expression;
          node->items.clear();
          return node;
        }
        node->items.push_back(value(item, "", depth + 1));
      }
      return node;
    }
    if (is(n, "call")) {
      TSNode function = field(n, "function");
      std::optional<ConfigClass> c = class_of(function);
      TSNode name = is(function, "attribute") ? field(function, "attribute") : function;
      bool value_class = !c && (is(function, "identifier") || is(function, "attribute")) &&
                         is_value_class(text_of(name));
      if ((c && c->level != ConfigLevel::Top) || value_class ||
          (is(function, "identifier") && text_of(function) == "dict")) {
        node->kind = Node::Kind::Map;
        bool class_call = c || value_class;
        if (class_call) {
          node->model = std::string(text_of(name));
          node->range = range_of(field(n, "arguments"));
        }
        keyword_fields(field(n, "arguments"), *node, depth + 1, class_call);
        return node;
      }
      walk(n, depth + 1); // `QuantizerConfig.from_dict(...)` or a setter nested in an argument
    }
    if (literal(n, *node))
      return node;
    node->scalar = std::string(text_of(n)); // for messages only
    node->type = ScalarType::Expression;
    return node;
  }

  const SourceText& source_;
  std::string_view text_;
  PythonRead out_;
  Node* root_ = nullptr;
  std::unordered_map<std::string, Compressor> variables_;
  // Which config object each config call builds or changes (by the call's first byte), which
  // one a variable holds, and which one a receiver opscope cannot follow (`self.config`, a
  // parameter) names, by its text: each such receiver is one object.
  std::unordered_map<std::uint64_t, int> object_of_call_; // by call_id()
  std::unordered_map<std::string, int> object_of_variable_;
  std::unordered_map<std::string, int> object_of_receiver_;
  int objects_ = 0;
  Compressor fallback_ = Compressor::Quantizer;
  bool imports_coreai_ = false;
  bool served_ = false;
  bool reported_too_deep_ = false;
};

} // namespace

PythonRead scan_python(const SourceText& source) {
  return PythonReader(source).read();
}

} // namespace opscope::config::detail
