#include "opscope/schema/check.h"

#include "opscope/config/tree.h"
#include "scalars.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace opscope::schema {
namespace {

using config::Entry;
using config::Node;
using config::Range;

constexpr int kMaxAliasHops = 32; // alias chains longer than this are cycles
constexpr int kMaxDepth = 300;    // the reader stops at 256 levels
// Values and entries checked, aliases and merge keys included. A 50,000-key config visits ~250,000;
// merge keys nested through aliases grow exponentially, so the bound is what stops them (4,000,000
// took the YAML fuzzer over its 10 s timeout under ASan).
constexpr std::size_t kMaxVisits = 1'000'000;

bool same_problem(const Problem& a, const Problem& b) {
  return a.kind == b.kind && a.range == b.range && a.message == b.message;
}

// A problem found twice (an anchored value reached from many keys, one a union dropped and
// met again) is reported once, where first found.
void drop_repeats(std::vector<Problem>& problems) {
  std::vector<bool> repeat(problems.size(), false);
  std::set<std::tuple<config::Position, config::Position, Problem::Kind, std::string_view>> seen;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const Problem& p = problems[i];
    repeat[i] = !seen.emplace(p.range.start, p.range.end, p.kind, p.message).second;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < problems.size(); ++i)
    if (!repeat[i]) {
      if (kept != i)
        problems[kept] = std::move(problems[i]);
      ++kept;
    }
  problems.resize(kept);
}

const Node* resolve(const Node* node) {
  for (int hops = 0; node && node->kind == Node::Kind::Alias; ++hops) {
    if (hops > kMaxAliasHops)
      return nullptr;
    node = node->target;
  }
  return node;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string number_text(double x) {
  if (std::floor(x) == x && std::fabs(x) < 1e15)
    return std::to_string(static_cast<long long>(x));
  return Value{Value::Kind::Float, false, 0, x, {}}.text();
}

std::vector<std::string> nearest(const std::string& name, const std::vector<std::string>& valid) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const std::string& v : valid) {
    std::size_t d = edit_distance(name, v);
    if (d <= std::max<std::size_t>(2, v.size() / 3))
      scored.emplace_back(d, v);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i)
    out.push_back(scored[i].second);
  return out;
}

std::string quoted_list(const std::vector<std::string>& items, std::size_t max = 16) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < max; ++i)
    out += (i ? ", " : "") + ("`" + items[i] + "`");
  if (items.size() > max)
    out += ", …";
  return out;
}

// A mapping as PyYAML builds it: explicit keys (the last of a repeated key wins) over keys
// merged with `<<` (the first merge that has a key wins).
struct MapView {
  std::vector<const Entry*> entries;
  const Entry* find(std::string_view key) const {
    for (const Entry* e : entries)
      if (e->key == key && !is_merge(*e))
        return e;
    return nullptr;
  }
  static bool is_merge(const Entry& e) { return e.key == "<<" && !e.quoted; }
};

class Checker {
public:
  Checker(const Schema& schema, const config::ConfigDocument& doc)
      : schema_(schema), json_(doc.format == config::Format::Json) {
    for (const config::UnknownField& u : doc.unknown_fields)
      already_.insert({u.range.start.line, u.range.start.byte_col});
  }

  std::vector<Problem> run(const Node& root_node, std::string_view expected_root) {
    const Node* root = resolve(&root_node);
    if (!root || root->kind == Node::Kind::Null)
      return std::move(out_);
    if (root->kind != Node::Kind::Map) {
      if (!(root->kind == Node::Kind::Scalar && scalar(*root).kind == PyValue::Kind::Null))
        report(Problem::Kind::Root, root->range,
               "coreai-opt reads a config as a mapping (`quantization_config: ...`); this "
               "document is not one");
      return std::move(out_);
    }
    MapView top = view(*root, 0);
    const Root* found = nullptr;
    const Entry* found_entry = nullptr;
    for (const Entry* e : top.entries)
      if (const Root* r = schema_.root(e->key); r && !found) {
        found = r;
        found_entry = e;
      }
    if (!found) {
      // The project says which compressor this is, or a spec section does (a document whose
      // `quantization_config:` line was deleted): coreai-opt's from_dict wants its key.
      const Root* expected = schema_.root(expected_root);
      for (const Entry* e : top.entries)
        for (const Root& r : schema_.roots)
          if (!expected && e->key == r.spec_key)
            expected = &r;
      if (expected)
        missing_root(*root, top, *expected);
      return std::move(out_); // else not a coreai-opt config (yet): nothing to hold it to
    }
    for (const Entry* e : top.entries) {
      if (e == found_entry || e->key == found->spec_key)
        continue;
      if (schema_.root(e->key)) {
        report(Problem::Kind::Root, e->key_range,
               "one config file configures one compressor: `" + e->key + "` and `" +
                   found->config_key + "` cannot be loaded together");
      } else {
        unknown(*e, "the top level", std::vector<std::string>{found->config_key, found->spec_key},
                true);
      }
    }
    const Node* value = resolve(found_entry->value.get());
    if (!value || value->kind != Node::Kind::Map) {
      bool empty = value && value->kind == Node::Kind::Map;
      if (!empty)
        report(Problem::Kind::WrongType, value ? value->range : found_entry->key_range,
               "`" + found->config_key +
                   "` needs a mapping (`global_config`, "
                   "`module_type_configs`, ...); coreai-opt cannot build a config from " +
                   describe(value));
      return std::move(out_);
    }
    const Model* model = schema_.model(found->model);
    check_model(*value, *model, found_entry->key_range, 1);
    return std::move(out_);
  }

  // Python: each from_dict document as from_dict reads it, then every class call outside them
  // (each validates its arguments when it runs).
  std::vector<Problem> run_python(const config::Tree& tree) {
    const Node* root = tree.root.get();
    if (!root || root->kind != Node::Kind::Map)
      return std::move(out_);
    std::vector<bool> in_document(root->entries.size());
    for (const config::FromDict& site : tree.from_dict) {
      for (std::size_t i = site.first; i < site.first + site.count && i < in_document.size(); ++i)
        in_document[i] = true;
      from_dict(*root, site);
    }
    // Every call runs, wherever it is written (a spec section, a key coreai-opt refuses): the
    // ones the documents' check did not reach are checked on their own.
    for (const Entry& e : root->entries)
      if (e.value)
        calls(*e.value, 0);
    return std::move(out_);
  }

private:
  void calls(const Node& node, int depth) {
    if (depth > kMaxDepth || ++visits_ > kMaxVisits)
      return;
    if (node.kind == Node::Kind::Map && !node.model.empty() && !instances_.count(&node))
      check_type(&node, Type{}, node.range, depth); // Type{}: Any
    // and the calls inside it that its check did not reach (under a key it ignores)
    for (const Entry& e : node.entries)
      if (e.value)
        calls(*e.value, depth + 1);
    for (const auto& item : node.items)
      calls(*item, depth + 1);
  }

  // CompressionConfig.from_dict: its keys, then `cls(**document[config_key])`.
  void from_dict(const Node& root, const config::FromDict& site) {
    const Root* r = schema_.root(site.config_key);
    const Model* model = r ? schema_.model(r->model) : nullptr;
    if (!model)
      return;
    std::string supported = "{'" + r->config_key + "', '" + r->spec_key + "'}";
    const Entry* config = nullptr;
    for (std::size_t i = site.first; i < site.first + site.count && i < root.entries.size(); ++i) {
      const Entry& e = root.entries[i];
      if (e.key_type == config::ScalarType::Str && e.key == r->config_key) {
        config = &e; // a repeated key: Python keeps the last value
      } else if (!(e.key_type == config::ScalarType::Str && e.key == r->spec_key)) {
        std::vector<std::string> near =
            nearest(e.key, std::vector<std::string>{r->config_key, r->spec_key});
        report(Problem::Kind::Root, e.key_range,
               "Found unexpected key '" + e.key + "' in config dict. Supported keys are " +
                   supported + "." +
                   (near.empty() ? "" : " Did you mean " + quoted_list(near) + "?"),
               near);
      }
    }
    if (!config) {
      report(Problem::Kind::Root, site.range,
             "Did not find '" + r->config_key + "' in config dict. Expected keys: " + supported +
                 ".");
      return;
    }
    const Node* value = resolve(config->value.get());
    if (is_expression(value))
      return;
    if (!value || value->kind != Node::Kind::Map || !value->model.empty()) {
      report(Problem::Kind::WrongType, value ? value->range : config->key_range,
             "`" + r->config_key + "` needs a dict (`global_config`, ...): from_dict calls " +
                 model->name + "(**value) with it, and cannot with " + describe(value));
      return;
    }
    check_model(*value, *model, config->key_range, 1);
  }

  void missing_root(const Node& root, const MapView& top, const Root& expected) {
    std::string supported = "{'" + expected.config_key + "', '" + expected.spec_key + "'}";
    for (const Entry* e : top.entries)
      if (e->key != expected.spec_key) {
        std::vector<std::string> near =
            nearest(e->key, std::vector<std::string>{expected.config_key, expected.spec_key});
        report(Problem::Kind::Root, e->key_range,
               "Found unexpected key '" + e->key + "' in config dict. Supported keys are " +
                   supported + "." +
                   (near.empty() ? "" : " Did you mean " + quoted_list(near) + "?"),
               near);
      }
    if (std::none_of(top.entries.begin(), top.entries.end(),
                     [&](const Entry* e) { return e->key != expected.spec_key; }))
      report(Problem::Kind::Root, Range{root.range.start, root.range.start},
             "Did not find '" + expected.config_key +
                 "' in config dict. Expected keys: " + supported + ".");
  }

  // --- reporting ---------------------------------------------------------------------
  // A union tries its options in turn and drops what a failed option reported.
  void report(Problem::Kind kind, Range range, std::string message,
              std::vector<std::string> suggestions = {}) {
    if (kind != Problem::Kind::IgnoredKey)
      ++errors_;
    out_.push_back({kind, range, std::move(message), std::move(suggestions)});
  }

  void unknown(const Entry& e, const std::string& where, const std::vector<std::string>& valid,
               bool forbid) {
    if (already_.count({e.key_range.start.line, e.key_range.start.byte_col})) {
      ++errors_; // reported by core/config; still an error for the union's choice
      return;
    }
    std::vector<std::string> near = nearest(e.key, valid);
    std::string message =
        forbid ? "unknown field `" + e.key + "` in " + where +
                     ": coreai-opt rejects the config (extra fields not "
                     "permitted)"
               : "`" + e.key + "` is not a field of " + where + ": coreai-opt ignores it silently";
    message += near.empty() ? "; valid here: " + quoted_list(valid)
                            : "; did you mean " + quoted_list(near) + "?";
    report(forbid ? Problem::Kind::UnknownKey : Problem::Kind::IgnoredKey, e.key_range,
           std::move(message), std::move(near));
  }

  // --- reading -----------------------------------------------------------------------
  PyValue scalar(const Node& n) const {
    switch (n.type) {
    case config::ScalarType::Untyped:
      break;
    case config::ScalarType::Str:
    case config::ScalarType::Expression: // guarded by is_expression() where it matters
      return PyValue::string(n.scalar);
    case config::ScalarType::Int:
      return PyValue::integer(std::strtod(n.scalar.c_str(), nullptr), n.scalar);
    case config::ScalarType::Float:
      return PyValue::floating(std::strtod(n.scalar.c_str(), nullptr), n.scalar);
    case config::ScalarType::Bool:
      return PyValue::boolean(n.scalar == "true");
    }
    return json_ ? json_scalar(n.scalar, n.quoted) : yaml_scalar(n.scalar, n.quoted);
  }
  PyValue key_value(const Entry& e) const {
    if (e.key_type == config::ScalarType::Int)
      return PyValue::integer(std::strtod(e.key.c_str(), nullptr), e.key);
    if (e.key_type != config::ScalarType::Untyped)
      return PyValue::string(e.key);
    return json_ ? json_scalar(e.key, true) : yaml_scalar(e.key, e.quoted);
  }

  // Python: a value the reader does not evaluate (`torch.int8`, a variable): never checked.
  static bool is_expression(const Node* n) {
    return n && n->kind == Node::Kind::Scalar && n->type == config::ScalarType::Expression;
  }

  std::string describe(const Node* n) const {
    if (!n)
      return "null";
    if (n->kind == Node::Kind::Map && !n->model.empty())
      return "a " + n->model;
    switch (n->kind) {
    case Node::Kind::Null:
      return "null";
    case Node::Kind::Map:
      return "a mapping";
    case Node::Kind::Seq:
      return "a list";
    case Node::Kind::Alias:
      return "an unknown alias";
    case Node::Kind::Scalar:
      break;
    }
    PyValue v = scalar(*n);
    switch (v.kind) {
    case PyValue::Kind::Null:
      return "null";
    case PyValue::Kind::Bool:
      return std::string("the boolean `") + n->scalar + "`";
    case PyValue::Kind::Int:
      return "the integer `" + n->scalar + "`";
    case PyValue::Kind::Float:
      return "the number `" + n->scalar + "`";
    default:
      return "the string `" + n->scalar + "`";
    }
  }

  // Each mapping's view is built once: merge keys naming the same anchors again and again
  // would otherwise rebuild them exponentially.
  // (A reference into views_, whose elements stay where they are.)
  const MapView& view(const Node& map, int depth) {
    if (auto known = views_.find(&map); known != views_.end())
      return known->second;
    MapView out = build_view(map, depth);
    return views_.emplace(&map, std::move(out)).first->second;
  }

  MapView build_view(const Node& map, int depth) {
    MapView out;
    // Keys to their place in out.entries: a map of a few keys (most of them) is searched in
    // place, without building a tree of strings for each of a config's 50,000 entries.
    constexpr std::size_t kFewKeys = 16;
    std::map<std::string_view, std::size_t> explicit_at;
    auto place_of = [&](std::string_view key) -> std::size_t {
      if (map.entries.size() > kFewKeys) {
        auto it = explicit_at.find(key);
        return it == explicit_at.end() ? out.entries.size() : it->second;
      }
      for (std::size_t i = 0; i < out.entries.size(); ++i)
        if (out.entries[i]->key == key)
          return i;
      return out.entries.size();
    };
    std::vector<const Entry*> merged;
    std::set<std::string, std::less<>> merged_keys;
    for (const Entry& e : map.entries) {
      if (++visits_ > kMaxVisits)
        return out;
      if (MapView::is_merge(e)) {
        merge_into(e, depth, merged, merged_keys);
        continue;
      }
      std::size_t at = place_of(e.key);
      if (at == out.entries.size()) {
        if (map.entries.size() > kFewKeys)
          explicit_at.emplace(e.key, at);
        out.entries.push_back(&e);
      } else {
        out.entries[at] = &e; // PyYAML keeps the last
      }
    }
    std::size_t explicit_count = out.entries.size();
    for (const Entry* m : merged) {
      std::size_t at = place_of(m->key);
      if (at >= explicit_count)
        out.entries.push_back(m);
    }
    return out;
  }

  void merge_into(const Entry& e, int depth, std::vector<const Entry*>& merged,
                  std::set<std::string, std::less<>>& keys) {
    if (depth > kMaxAliasHops)
      return;
    std::vector<const Node*> sources;
    const Node* v = e.value.get();
    if (v && v->kind == Node::Kind::Seq)
      for (const auto& item : v->items)
        sources.push_back(item.get());
    else
      sources.push_back(v);
    for (const Node* source : sources) {
      const Node* map = resolve(source);
      if (!map || map->kind != Node::Kind::Map) {
        report(Problem::Kind::WrongType, source ? source->range : e.key_range,
               "a merge key `<<` takes a mapping or a list of mappings (PyYAML refuses the "
               "document)");
        continue;
      }
      for (const Entry* inner : view(*map, depth + 1).entries)
        if (keys.insert(inner->key).second)
          merged.push_back(inner);
    }
  }

  // --- types -------------------------------------------------------------------------
  // Checks `node` (null: nothing written, at `at`) against `type`; returns the errors found.
  // An alias checked against a type it was checked against before gives what it gave then:
  // a generated config writes `op_state_spec: *w8` 50,000 times, and its anchor is one value
  // with one set of problems, not 50,000 (nor a check cut short by kMaxVisits half way).
  int check_type(const Node* written, const Type& type, Range at, int depth) {
    if (!written || written->kind != Node::Kind::Alias)
      return check_value(written, type, at, depth);
    const Node* target = resolve(written);
    if (!target)
      return check_value(written, type, at, depth);
    auto key = std::make_pair(target, &type);
    if (auto known = aliases_checked_.find(key); known != aliases_checked_.end()) {
      const AliasCheck& check = known->second;
      errors_ += check.errors;
      // Reported again only when a union dropped them since (one of its options failed).
      bool still_there =
          check.at + check.problems.size() <= out_.size() &&
          std::equal(check.problems.begin(), check.problems.end(),
                     out_.begin() + static_cast<std::ptrdiff_t>(check.at), same_problem);
      if (!still_there)
        out_.insert(out_.end(), check.problems.begin(), check.problems.end());
      return check.errors;
    }
    std::size_t mark = out_.size();
    int errors = check_value(written, type, at, depth);
    // Kept only when every problem is inside the anchored value: one placed at this use (its
    // key, the alias itself) is this use's own.
    bool inside = std::all_of(
        out_.begin() + static_cast<std::ptrdiff_t>(mark), out_.end(), [&](const Problem& p) {
          return target->range.start <= p.range.start && p.range.end <= target->range.end;
        });
    if (inside)
      aliases_checked_.emplace(
          key, AliasCheck{errors, mark,
                          std::vector<Problem>(out_.begin() + static_cast<std::ptrdiff_t>(mark),
                                               out_.end())});
    return errors;
  }

  int check_value(const Node* written, const Type& type, Range at, int depth) {
    // Counted per call too: unions are tried one option at a time, so a hostile dump nesting
    // unions would otherwise multiply the work per level.
    if (depth > kMaxDepth || ++visits_ > kMaxVisits)
      return 0;
    const Node* node = resolve(written);
    Range range = written ? written->range : at;
    int before = errors_;
    if (is_expression(node))
      return 0;
    if (node && node->kind == Node::Kind::Map && !node->model.empty() &&
        type.kind != Type::Kind::Union) {
      check_instance(*node, type, range, at, depth);
      return errors_ - before;
    }
    bool is_null = !node || node->kind == Node::Kind::Null ||
                   (node->kind == Node::Kind::Scalar && scalar(*node).kind == PyValue::Kind::Null);
    if (is_null && type.none_ok)
      return 0;
    switch (type.kind) {
    case Type::Kind::Any:
      break;
    case Type::Kind::Null:
      if (!is_null)
        report(Problem::Kind::WrongType, range, "expected null, got " + describe(node));
      break;
    case Type::Kind::Union:
      check_union(node, written, type, at, depth);
      break;
    case Type::Kind::Bool:
    case Type::Kind::Int:
    case Type::Kind::Float:
    case Type::Kind::Str:
    case Type::Kind::Enum:
    case Type::Kind::Literal:
      check_scalar(node, type, range);
      break;
    case Type::Kind::Model:
      if (!node || node->kind != Node::Kind::Map)
        report(Problem::Kind::WrongType, range,
               "expected a mapping (" + type.name + "), got " + describe(node));
      else if (const Model* m = schema_.model(type.name))
        check_model(*node, *m, at, depth + 1);
      break;
    case Type::Kind::Registry:
      check_registry(node, type, range, at, depth);
      break;
    case Type::Kind::Dict:
      if (!node || node->kind != Node::Kind::Map) {
        report(Problem::Kind::WrongType, range, "expected a mapping, got " + describe(node));
        break;
      }
      for (const Entry* e : view(*node, 0).entries) {
        if (++visits_ > kMaxVisits)
          break;
        check_key(*e, type.children[0]);
        check_type(e->value.get(), type.children[1], e->key_range, depth + 1);
      }
      break;
    case Type::Kind::List:
    case Type::Kind::Tuple:
      if (!node || node->kind != Node::Kind::Seq) {
        report(Problem::Kind::WrongType, range, "expected a list, got " + describe(node));
        break;
      }
      if (type.kind == Type::Kind::Tuple && node->items.size() != type.children.size()) {
        report(Problem::Kind::WrongType, range,
               "expected a list of " + std::to_string(type.children.size()) + " items, got " +
                   std::to_string(node->items.size()));
        break;
      }
      for (std::size_t i = 0; i < node->items.size(); ++i) {
        if (++visits_ > kMaxVisits)
          break;
        const Type& item = type.kind == Type::Kind::List ? type.children[0] : type.children[i];
        check_type(node->items[i].get(), item, node->items[i]->range, depth + 1);
      }
      break;
    }
    return errors_ - before;
  }

  // pydantic's smart union: valid when any option is. Otherwise the option closest to
  // what was written explains the problem.
  void check_union(const Node* node, const Node* written, const Type& type, Range at, int depth) {
    int best = -1;
    int best_errors = 0;
    for (std::size_t i = 0; i < type.children.size(); ++i) {
      int saved = errors_;
      std::size_t mark = out_.size();
      int errors = check_type(written, type.children[i], at, depth + 1);
      if (errors == 0)
        return; // its warnings (ignored keys) stay
      out_.resize(mark);
      errors_ = saved;
      int fit = shape_fits(node, type.children[i]) ? 0 : 1000;
      if (best < 0 || fit + errors < best_errors) {
        best = static_cast<int>(i);
        best_errors = fit + errors;
      }
    }
    if (best >= 0)
      check_type(written, type.children[static_cast<std::size_t>(best)], at, depth + 1);
  }

  // Python: a class call where `type` goes. pydantic takes an instance of the class (or of a
  // subclass) as it is; the call itself validated its arguments.
  void check_instance(const Node& node, const Type& type, Range range, Range at, int depth) {
    instances_.insert(&node);
    const Model* m = schema_.model(node.model);
    if (!m)
      return; // a class this schema does not know: not checked
    if (!accepts_instance(type, *m))
      report(Problem::Kind::WrongType, range,
             "expected " + expectation(type) + ", got a " + m->name +
                 " (pydantic takes a dict or an instance of the class named here)");
    check_model(node, *m, at, depth + 1);
  }

  bool accepts_instance(const Type& t, const Model& m) const {
    switch (t.kind) {
    case Type::Kind::Any:
      return true;
    case Type::Kind::Model:
      return m.is_a(t.name);
    case Type::Kind::Registry:
      return m.is_a(t.name) || std::any_of(t.registry.begin(), t.registry.end(),
                                           [&](const auto& kv) { return kv.second == m.name; });
    case Type::Kind::Union:
      return std::any_of(t.children.begin(), t.children.end(),
                         [&](const Type& c) { return accepts_instance(c, m); });
    default:
      return false;
    }
  }

  bool shape_fits(const Node* node, const Type& t) const {
    if (is_expression(node))
      return true;
    Node::Kind k = node ? node->kind : Node::Kind::Null;
    switch (t.kind) {
    case Type::Kind::Model:
    case Type::Kind::Dict:
    case Type::Kind::Registry:
      return k == Node::Kind::Map;
    case Type::Kind::List:
    case Type::Kind::Tuple:
      return k == Node::Kind::Seq;
    case Type::Kind::Null:
      return k == Node::Kind::Null ||
             (k == Node::Kind::Scalar && scalar(*node).kind == PyValue::Kind::Null);
    case Type::Kind::Union:
      return std::any_of(t.children.begin(), t.children.end(),
                         [&](const Type& c) { return shape_fits(node, c); });
    default:
      return k == Node::Kind::Scalar && scalar(*node).kind != PyValue::Kind::Null;
    }
  }

  void check_key(const Entry& e, const Type& key_type) {
    if (MapView::is_merge(e))
      return;
    PyValue k = key_value(e);
    if (key_type.digit_keys && k.kind == PyValue::Kind::Str && is_ascii_digits(k.s))
      k = PyValue::integer(std::stod(k.s), k.s);
    if (!scalar_fits(k, key_type))
      report(Problem::Kind::WrongType, e.key_range,
             "the key `" + e.key + "` is read as " + k.type_name() + "; coreai-opt expects " +
                 type_name(key_type) + " keys here" +
                 (k.kind != PyValue::Kind::Str ? " (quote it to make it a string)" : ""));
  }

  bool scalar_fits(const PyValue& v, const Type& t) {
    if (t.kind == Type::Kind::Union)
      return std::any_of(t.children.begin(), t.children.end(),
                         [&](const Type& c) { return scalar_fits(v, c); });
    if (t.kind == Type::Kind::Any)
      return true;
    if (t.kind == Type::Kind::Null)
      return v.kind == PyValue::Kind::Null;
    return coerce(v, t).has_value();
  }

  static bool is_ascii_digits(const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  }

  std::string type_name(const Type& t) const {
    switch (t.kind) {
    case Type::Kind::Bool:
      return "a boolean";
    case Type::Kind::Int:
      return "an integer";
    case Type::Kind::Float:
      return "a number";
    case Type::Kind::Str:
      return "string";
    case Type::Kind::Union: {
      std::string out;
      for (const Type& c : t.children)
        if (c.kind != Type::Kind::Null)
          out += (out.empty() ? "" : " or ") + type_name(c);
      return out;
    }
    case Type::Kind::Null:
      return "null";
    default:
      return "a " + (t.name.empty() ? std::string("value") : t.name);
    }
  }

  // The value pydantic (lax mode) makes of `v` for a scalar type, or why not.
  std::optional<PyValue> coerce(const PyValue& v, const Type& t) {
    using K = PyValue::Kind;
    switch (t.kind) {
    case Type::Kind::Bool:
      if (v.kind == K::Bool)
        return v;
      if ((v.kind == K::Int || v.kind == K::Float) && (v.number == 0 || v.number == 1))
        return PyValue::boolean(v.number == 1);
      if (v.kind == K::Str) {
        std::string s = lower(v.s);
        for (const char* yes : {"1", "on", "t", "true", "y", "yes"})
          if (s == yes)
            return PyValue::boolean(true);
        for (const char* no : {"0", "off", "f", "false", "n", "no"})
          if (s == no)
            return PyValue::boolean(false);
      }
      return std::nullopt;
    case Type::Kind::Int:
      if (v.kind == K::Bool || v.kind == K::Int)
        return PyValue::integer(v.number, v.text);
      if (v.kind == K::Float && std::isfinite(v.number) && std::floor(v.number) == v.number)
        return PyValue::integer(v.number, v.text);
      if (v.kind == K::Str)
        if (auto n = parse_python_int_text(v.s))
          return PyValue::integer(*n, v.s);
      return std::nullopt;
    case Type::Kind::Float:
      if (v.kind == K::Bool || v.kind == K::Int || v.kind == K::Float)
        return PyValue::floating(v.number, v.text);
      if (v.kind == K::Str)
        if (auto n = parse_python_float_text(v.s))
          return PyValue::floating(*n, v.s);
      return std::nullopt;
    case Type::Kind::Str:
      return v.kind == K::Str ? std::optional<PyValue>(v) : std::nullopt;
    case Type::Kind::Enum:
      return v.kind == K::Str && t.accepts_enum(v.s) ? std::optional<PyValue>(v) : std::nullopt;
    case Type::Kind::Literal:
      for (const Value& lit : t.literals) {
        if (lit.kind == Value::Kind::Null && v.kind == K::Null)
          return v;
        if (lit.kind == Value::Kind::Str && v.kind == K::Str && v.s == lit.s)
          return v;
        bool numeric = v.kind == K::Int || v.kind == K::Bool || v.kind == K::Float;
        if (lit.kind == Value::Kind::Int && numeric && v.number == static_cast<double>(lit.i))
          return v;
        if (lit.kind == Value::Kind::Bool && v.kind == K::Bool && v.number == (lit.b ? 1 : 0))
          return v;
      }
      return std::nullopt;
    default:
      return std::nullopt;
    }
  }

  void check_scalar(const Node* node, const Type& t, Range range) {
    if (!node || (node->kind != Node::Kind::Scalar && node->kind != Node::Kind::Null)) {
      report(Problem::Kind::WrongType, range,
             "expected " + expectation(t) + ", got " + describe(node));
      return;
    }
    PyValue v = node->kind == Node::Kind::Null ? PyValue{} : scalar(*node);
    std::optional<PyValue> c = coerce(v, t);
    if (!c) {
      bool choice = t.kind == Type::Kind::Enum || t.kind == Type::Kind::Literal;
      std::vector<std::string> valid = choices(t);
      std::vector<std::string> near =
          choice && v.kind == PyValue::Kind::Str ? nearest(v.s, valid) : std::vector<std::string>{};
      std::string message = "expected " + expectation(t) + ", got " + describe(node);
      if (!near.empty())
        message += "; did you mean " + quoted_list(near) + "?";
      report(choice && v.kind != PyValue::Kind::Null ? Problem::Kind::NotAllowed
                                                     : Problem::Kind::WrongType,
             range, std::move(message), std::move(near));
      return;
    }
    if (t.kind != Type::Kind::Int && t.kind != Type::Kind::Float)
      return;
    double x = c->number;
    auto bound = [&](const std::optional<double>& b, bool ok, const char* op) {
      if (b && !ok)
        report(Problem::Kind::OutOfRange, range,
               "`" + node->scalar + "` is out of range: coreai-opt requires a value " + op + " " +
                   number_text(*b));
    };
    bound(t.ge, t.ge && x >= *t.ge, ">=");
    bound(t.gt, t.gt && x > *t.gt, ">");
    bound(t.le, t.le && x <= *t.le, "<=");
    bound(t.lt, t.lt && x < *t.lt, "<");
  }

  std::vector<std::string> choices(const Type& t) const {
    std::vector<std::string> out = t.values;
    for (const Value& v : t.literals)
      out.push_back(v.text());
    return out;
  }

  std::string expectation(const Type& t) const {
    if (t.kind == Type::Kind::Enum || t.kind == Type::Kind::Literal)
      return "one of " + quoted_list(choices(t));
    return type_name(t);
  }

  void check_registry(const Node* node, const Type& t, Range range, Range at, int depth) {
    std::vector<std::string> keys;
    for (const auto& [key, model] : t.registry)
      keys.push_back(key);
    if (!node || node->kind != Node::Kind::Map) {
      report(Problem::Kind::WrongType, range,
             "expected a mapping with `type` (one of " + quoted_list(keys) + "), got " +
                 describe(node));
      return;
    }
    MapView map = view(*node, 0);
    const Entry* type_entry = map.find("type");
    if (!type_entry) {
      report(Problem::Kind::Missing, at,
             "Missing type key in dict for " + t.name + " (one of " + quoted_list(keys) + ")");
      return;
    }
    const Node* tv = resolve(type_entry->value.get());
    if (is_expression(tv))
      return;
    PyValue v = tv && tv->kind == Node::Kind::Scalar ? scalar(*tv) : PyValue{};
    auto it = std::find_if(t.registry.begin(), t.registry.end(), [&](const auto& kv) {
      return v.kind == PyValue::Kind::Str && kv.first == v.s;
    });
    if (it == t.registry.end()) {
      std::vector<std::string> near =
          v.kind == PyValue::Kind::Str ? nearest(v.s, keys) : std::vector<std::string>{};
      std::string message =
          "No object is registered with key: " + (tv ? tv->scalar : std::string("null")) +
          " in registry " + t.name + "; valid: " + quoted_list(keys);
      if (!near.empty())
        message += "; did you mean " + quoted_list(near) + "?";
      report(Problem::Kind::NotAllowed, tv ? tv->range : type_entry->key_range, message, near);
      return;
    }
    if (const Model* m = schema_.model(it->second))
      check_model(*node, *m, at, depth + 1, "type");
  }

  // --- models ------------------------------------------------------------------------
  void check_model(const Node& map_node, const Model& model, Range at, int depth,
                   std::string_view skip = {}) {
    if (depth > kMaxDepth)
      return;
    const MapView& map = view(map_node, 0);
    int before = errors_;
    for (const Entry* e : map.entries) {
      if (MapView::is_merge(*e) || e->key == skip)
        continue;
      if (++visits_ > kMaxVisits)
        return;
      if (!map_node.model.empty() && !e->has_colon) {
        report(Problem::Kind::WrongType, e->key_range,
               model.name + "(...) takes keyword arguments only (`name=value`): Python raises a "
                            "TypeError for this positional argument");
        continue;
      }
      const Field* field = key_value(*e).kind == PyValue::Kind::Str ? model.field(e->key) : nullptr;
      if (!field) {
        bool forbid = model.forbid && !model.strip_unknown;
        std::vector<std::string> names;
        for (const Field& f : model.fields)
          names.push_back(f.name);
        unknown(*e, "a " + model.name, names, forbid);
        continue;
      }
      if (field->name == "float_range" && model.name == "QuantizationSpec")
        check_float_range(*e);
      else
        check_type(e->value.get(), field->type, e->key_range, depth + 1);
    }
    // apply_defaults (a before-validator) fills the three op spec dicts when left out.
    auto filled = [&](const std::string& name) {
      return has(model, "apply_defaults") &&
             (name == "op_input_spec" || name == "op_output_spec" || name == "op_state_spec");
    };
    if (map_node.partial) // `**kwargs` may pass what is missing, and change what is written
      return;
    for (const Field& f : model.fields)
      if (f.required && !map.find(f.name) && !filled(f.name))
        report(Problem::Kind::Missing, at,
               "`" + f.name + "` is required in a " + model.name + " (Field required)");
    if (errors_ == before) // pydantic runs the after-validators on valid fields only
      check_validators(map, model);
  }

  // coreai-opt's before-validator for float_range replaces pydantic's list check.
  void check_float_range(const Entry& e) {
    const Node* n = resolve(e.value.get());
    Range r = e.value ? e.value->range : e.key_range;
    if (is_expression(n))
      return;
    if (!n || n->kind != Node::Kind::Seq)
      return report(Problem::Kind::WrongType, r, "Float range must be a list or tuple.");
    if (n->items.size() != 2)
      return report(Problem::Kind::WrongType, r, "Float range must have length 2.");
    std::optional<double> bounds[2];
    for (int i = 0; i < 2; ++i) {
      const Node* item = resolve(n->items[static_cast<std::size_t>(i)].get());
      if (is_expression(item))
        return;
      PyValue v = item && item->kind == Node::Kind::Scalar ? scalar(*item) : PyValue{};
      if (item && item->kind != Node::Kind::Scalar && item->kind != Node::Kind::Null)
        v.kind = PyValue::Kind::Str;
      if (v.kind == PyValue::Kind::Str || v.kind == PyValue::Kind::Bool)
        return report(Problem::Kind::WrongType, r,
                      "Float range entries must be ints, floats or None.");
      if (v.kind != PyValue::Kind::Null)
        bounds[i] = v.number;
    }
    if (bounds[0] && bounds[1] && *bounds[0] >= *bounds[1])
      return report(Problem::Kind::Combination, r,
                    "Float range [float_min, float_max] expects float_min < float_max.");
    if (bounds[0] && *bounds[0] > 0)
      return report(Problem::Kind::OutOfRange, r,
                    "Float range min value must be less than or equal to 0.");
    if (bounds[1] && *bounds[1] < 0)
      return report(Problem::Kind::OutOfRange, r,
                    "Float range max value must be greater than or equal to 0.");
  }

  // The value of `key` in `map` as pydantic would make it for the model's field type, or
  // the field's default; nullopt when neither is a scalar.
  std::optional<PyValue> field_value(const MapView& map, const Model& model, std::string_view key) {
    const Field* f = model.field(key);
    if (!f)
      return std::nullopt;
    if (const Entry* e = map.find(key)) {
      const Node* n = resolve(e->value.get());
      if (!n || n->kind == Node::Kind::Null)
        return PyValue{};
      if (n->kind != Node::Kind::Scalar || is_expression(n))
        return std::nullopt;
      PyValue v = scalar(*n);
      if (v.kind == PyValue::Kind::Null)
        return v;
      const Type* t = &f->type;
      if (t->kind == Type::Kind::Union)
        for (const Type& c : t->children)
          if (c.kind != Type::Kind::Null && coerce(v, c))
            return coerce(v, c);
      return coerce(v, *t);
    }
    if (!f->default_text)
      return std::nullopt;
    const std::string& d = *f->default_text;
    if (d == "null")
      return PyValue{};
    if (d == "true" || d == "false")
      return PyValue::boolean(d == "true");
    if (d.size() >= 2 && d.front() == '"')
      return PyValue::string(d.substr(1, d.size() - 2));
    if (auto n = parse_python_float_text(d))
      return PyValue::floating(*n, d);
    return std::nullopt;
  }

  const DtypeInfo* dtype(const std::optional<PyValue>& v) const {
    if (!v || v->kind != PyValue::Kind::Str)
      return nullptr;
    auto it = schema_.dtypes.find(v->s);
    return it == schema_.dtypes.end() ? nullptr : &it->second;
  }

  bool has(const Model& m, std::string_view validator) const {
    return std::find(m.validators.begin(), m.validators.end(), validator) != m.validators.end();
  }

  // A spec dict asks for compression when any of its values is not null.
  bool active(const Entry* e) const {
    const Node* n = e ? resolve(e->value.get()) : nullptr;
    if (!n || n->kind != Node::Kind::Map)
      return false;
    for (const Entry& inner : n->entries) {
      const Node* v = resolve(inner.value.get());
      if (is_expression(v))
        continue; // unknown: no error is claimed on it
      if (v && !(v->kind == Node::Kind::Null ||
                 (v->kind == Node::Kind::Scalar && scalar(*v).kind == PyValue::Kind::Null)))
        return true;
    }
    return false;
  }

  void combination(const Entry* at, Range fallback, std::string message) {
    report(Problem::Kind::Combination, at ? at->key_range : fallback, std::move(message));
  }

  // coreai-opt's model validators, ported by name (a validator this list does not know is a
  // documented limit: the config is then only checked field by field).
  void check_validators(const MapView& map, const Model& model) {
    Range none{};
    if (has(model, "validate_weight_only_op_constraint") ||
        has(model, "validate_weight_only_module_constraint")) {
      bool module = has(model, "validate_weight_only_module_constraint");
      std::vector<std::string> keys{"op_input_spec", "op_output_spec"};
      if (module) {
        keys.push_back("module_input_spec");
        keys.push_back("module_output_spec");
      }
      for (const std::string& key : keys)
        if (active(map.find(key))) {
          combination(map.find(key), none,
                      model.name + " does not support " + key +
                          ". This is a weight-only compression type that only supports " +
                          (module ? "op_state_spec and module_state_spec." : "op_state_spec."));
          break;
        }
    }
    if (has(model, "_validate_global_config_restrictions"))
      if (const Entry* g = map.find("global_config")) {
        const Node* n = resolve(g->value.get());
        if (n && n->kind == Node::Kind::Map) {
          MapView inner = view(*n, 0);
          for (const char* key : {"module_input_spec", "module_output_spec", "module_state_spec"}) {
            const Entry* e = inner.find(key);
            const Node* v = e ? resolve(e->value.get()) : nullptr;
            if (v && v->kind == Node::Kind::Map && !v->entries.empty()) {
              combination(e, none,
                          "global_config cannot have module_input_spec, module_output_spec, or "
                          "module_state_spec. These are only allowed in module_type_configs "
                          "and module_name_configs.");
              break;
            }
          }
        }
      }
    if (has(model, "_validate_schedule")) {
      auto eo = field_value(map, model, "enable_observer");
      auto ef = field_value(map, model, "enable_fake_quant");
      auto dob = field_value(map, model, "disable_observer");
      if (eo && ef && ef->number < eo->number)
        combination(map.find("enable_fake_quant"), none,
                    "enable_fake_quant (" + ef->text + ") must be >= enable_observer (" + eo->text +
                        ")");
      else if (eo && ef && dob && dob->kind != PyValue::Kind::Null) {
        if (dob->number <= eo->number)
          combination(map.find("disable_observer"), none,
                      "disable_observer (" + dob->text + ") must be > enable_observer (" +
                          eo->text + ")");
        else if (dob->number < ef->number)
          combination(map.find("disable_observer"), none,
                      "disable_observer (" + dob->text + ") must be >= enable_fake_quant (" +
                          ef->text + ")");
      }
    }
    if (has(model, "validate_scale_dtype") || has(model, "validate_symmetric_qscheme"))
      check_quantization_spec(map, model);
    if (has(model, "validate_lut_qspec"))
      check_lut_qspec(map);
    if (has(model, "validate_vector_kmeans_has_vector_spec"))
      check_vector_kmeans(map);
    if (has(model, "validate_fast_kmeans_cluster_dim_constraint")) {
      auto fast = field_value(map, model, "enable_fast_kmeans_mode");
      const Entry* specs = map.find("op_state_spec");
      const Node* n = specs ? resolve(specs->value.get()) : nullptr;
      if (fast && fast->number != 0 && n && n->kind == Node::Kind::Map)
        for (const Entry* e : view(*n, 0).entries)
          if (cluster_dim(e) > 1) {
            combination(e, none,
                        "enable_fast_kmeans_mode is not supported when cluster_dim > 1 (state '" +
                            e->key + "'): set enable_fast_kmeans_mode: false");
            break;
          }
    }
  }

  // PalettizationSpec.validate_lut_qspec.
  void check_lut_qspec(const MapView& map) {
    const Entry* lut = map.find("lut_qspec");
    const Node* n = lut ? resolve(lut->value.get()) : nullptr;
    const Model* qspec = schema_.model("QuantizationSpec");
    if (!n || n->kind != Node::Kind::Map || !qspec)
      return;
    MapView inner = view(*n, 0);
    const DtypeInfo* dt = dtype(field_value(inner, *qspec, "dtype"));
    if (dt && !dt->lut) {
      std::vector<std::string> allowed;
      for (const auto& [name, info] : schema_.dtypes)
        if (info.lut && info.canonical == name)
          allowed.push_back(name);
      return combination(inner.find("dtype") ? inner.find("dtype") : lut, {},
                         "lut_qspec.dtype must be one of " + quoted_list(allowed) + ", got torch." +
                             dt->canonical);
    }
    const Entry* g = inner.find("granularity");
    const Node* gn = g ? resolve(g->value.get()) : nullptr;
    if (gn && gn->kind == Node::Kind::Map) {
      const Entry* type = view(*gn, 0).find("type");
      const Node* tn = type ? resolve(type->value.get()) : nullptr;
      if (tn && tn->kind == Node::Kind::Scalar && !is_expression(tn) && tn->scalar != "per_tensor")
        return combination(g, {},
                           "lut_qspec.granularity must be PerTensorGranularity, got " + tn->scalar);
    }
    auto qform = field_value(inner, *qspec, "qformulation");
    if (qform && qform->kind == PyValue::Kind::Str && qform->s == "minval")
      return combination(inner.find("qformulation"), {},
                         "lut_qspec.qformulation=MINVAL is not supported for palettization. Use "
                         "lut_qspec.qformulation=ZP instead.");
    auto scale = field_value(inner, *qspec, "scale_dtype");
    if (dt && !dt->floating && scale && scale->kind != PyValue::Kind::Null)
      return combination(inner.find("scale_dtype"), {},
                         "lut_qspec.scale_dtype must be None for integer lut_qspec.dtype");
  }

  // ModuleKMeansPalettizerConfig.validate_vector_kmeans_has_vector_spec.
  void check_vector_kmeans(const MapView& map) {
    const Entry* vk = map.find("vector_kmeans_config");
    const Node* n = vk ? resolve(vk->value.get()) : nullptr;
    if (!n || n->kind == Node::Kind::Null ||
        (n->kind == Node::Kind::Scalar && scalar(*n).kind == PyValue::Kind::Null))
      return;
    auto any_vector = [&](const MapView& owner, const char* key) {
      const Entry* e = owner.find(key);
      if (!e) // left out: the default spec (cluster_dim 1)
        return false;
      const Node* specs = resolve(e->value.get());
      if (!specs || specs->kind != Node::Kind::Map)
        return false;
      for (const Entry* s : view(*specs, 0).entries)
        if (cluster_dim(s) > 1)
          return true;
      return false;
    };
    bool found = any_vector(map, "op_state_spec") || any_vector(map, "module_state_spec");
    for (const char* table : {"op_type_config", "op_name_config"}) {
      const Entry* t = map.find(table);
      const Node* tn = t ? resolve(t->value.get()) : nullptr;
      if (!found && tn && tn->kind == Node::Kind::Map)
        for (const Entry* op : view(*tn, 0).entries) {
          const Node* on = resolve(op->value.get());
          if (on && on->kind == Node::Kind::Map && any_vector(view(*on, 0), "op_state_spec"))
            found = true;
        }
    }
    if (!found)
      combination(vk, {},
                  "vector_kmeans_config only applies to vector palettization, but no "
                  "palettization spec in this module config has cluster_dim > 1.");
  }

  double cluster_dim(const Entry* spec_entry) {
    const Node* n = spec_entry ? resolve(spec_entry->value.get()) : nullptr;
    if (!n || n->kind != Node::Kind::Map)
      return 1;
    const Model* spec = schema_.model("PalettizationSpec");
    if (!spec)
      return 1;
    auto v = field_value(view(*n, 0), *spec, "cluster_dim");
    return v && v->kind != PyValue::Kind::Null ? v->number : 1;
  }

  void check_quantization_spec(const MapView& map, const Model& model) {
    Range none{};
    auto dt = field_value(map, model, "dtype");
    auto scale = field_value(map, model, "scale_dtype");
    const DtypeInfo* element = dtype(dt);
    const DtypeInfo* scale_info = dtype(scale);
    bool scale_set = scale && scale->kind != PyValue::Kind::Null;
    if (!scale_set && element && element->canonical == "float4_e2m1fn_x2")
      scale_set = true, scale_info = dtype(PyValue::string("float8_e8m0fnu"));
    if (has(model, "validate_scale_dtype") && scale_set && scale_info) {
      if (scale_info->canonical != "float8_e8m0fnu")
        return combination(map.find("scale_dtype"), none,
                           "Unsupported scale_dtype: torch." + scale_info->canonical +
                               ". Only None or torch.float8_e8m0fnu are supported.");
      if (element && !element->e8m0_scale)
        return combination(map.find("scale_dtype"), none,
                           "scale_dtype must be None for dtype=torch." + element->canonical +
                               ": no e8m0 target exponent is defined for it");
    }
    bool fp = (element && element->floating) || scale_set;
    auto qscheme = field_value(map, model, "qscheme");
    if (has(model, "validate_symmetric_qscheme") && fp && qscheme &&
        qscheme->kind == PyValue::Kind::Str && qscheme->s != "symmetric")
      return combination(map.find("qscheme"), none,
                         "FP quantization or an e8m0 scale requires symmetric quantization "
                         "scheme, got qscheme=" +
                             qscheme->s + ". Valid option: 'symmetric'");
    auto qform = field_value(map, model, "qformulation");
    if (has(model, "validate_zp_qformulation") && fp && qform &&
        qform->kind == PyValue::Kind::Str && qform->s != "zp")
      return combination(map.find("qformulation"), none,
                         "FP quantization or an e8m0 scale requires zero-point quantization "
                         "formulation, got qformulation=" +
                             qform->s + ". Valid option: 'zp'");
    if (has(model, "validate_qscheme_for_dynamic_quant") && qscheme &&
        qscheme->kind == PyValue::Kind::Str && qscheme->s == "symmetric_with_clipping") {
      auto calc = field_value(map, model, "qparam_calculator_cls");
      const Field* f = model.field("qparam_calculator_cls");
      if (calc && f && calc->kind == PyValue::Kind::Str &&
          std::find(f->type.stateless.begin(), f->type.stateless.end(), calc->s) !=
              f->type.stateless.end())
        return combination(map.find("qscheme"), none,
                           "SYMMETRIC_WITH_CLIPPING is not supported with a dynamic "
                           "qparam_calculator_cls. Use qscheme=SYMMETRIC or ASYMMETRIC.");
    }
  }

  const Schema& schema_;
  bool json_;
  std::vector<Problem> out_;
  std::set<std::pair<int, int>> already_;
  int errors_ = 0;
  std::size_t visits_ = 0;
  std::unordered_map<const Node*, MapView> views_;
  struct AliasCheck {
    int errors = 0;
    std::size_t at = 0; // where in out_ its problems were reported
    std::vector<Problem> problems;
  };
  std::map<std::pair<const Node*, const Type*>, AliasCheck> aliases_checked_; // check_type()
  std::set<const Node*> instances_; // Python: the class calls checked so far
};

} // namespace

const char* code(Problem::Kind kind) {
  switch (kind) {
  case Problem::Kind::UnknownKey:
    return "schema-unknown-key";
  case Problem::Kind::IgnoredKey:
    return "schema-ignored-key";
  case Problem::Kind::WrongType:
    return "schema-type";
  case Problem::Kind::NotAllowed:
    return "schema-value";
  case Problem::Kind::OutOfRange:
    return "schema-range";
  case Problem::Kind::Missing:
    return "schema-missing";
  case Problem::Kind::Combination:
    return "schema-combination";
  case Problem::Kind::Root:
    return "schema-root";
  }
  return "schema";
}

std::vector<Problem> check(const config::ConfigDocument& document, const Schema& schema,
                           std::string_view expected_root) {
  if (!document.tree || !document.tree->root)
    return {};
  std::vector<Problem> problems =
      document.format == config::Format::Python
          ? Checker(schema, document).run_python(*document.tree)
          : Checker(schema, document).run(*document.tree->root, expected_root);
  drop_repeats(problems);
  return problems;
}

} // namespace opscope::schema
