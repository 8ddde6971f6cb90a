#include "opscope/features/diagnostics.h"

#include "matching.h"
#include "opscope/features/overridden.h"
#include "opscope/features/prepare_failures.h"
#include "opscope/index/named_modules.h"
#include "resolution.h"
#include "text.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opscope::features {
namespace {

using config::PatternKey;
using config::Table;

constexpr std::size_t kSuggestions = 3;

std::string join_quoted(const std::vector<std::string>& items, std::size_t max = 12) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < max; ++i)
    out += (i ? ", " : "") + ("`" + items[i] + "`");
  if (items.size() > max)
    out += ", … (" + std::to_string(items.size() - max) + " more)";
  return out;
}

class Checker {
public:
  Checker(const config::ConfigDocument& doc, const Model* model)
      : doc_(doc), model_(model), index_(model && model->index ? model->index : nullptr),
        compressor_(model ? model->compressor : index::Compressor::None) {
    if (index_)
      queries_.emplace(*model);
  }

  std::vector<Diagnostic> run(const std::optional<ModelProblem>& model_problem) {
    if (model_problem) {
      config::Range top{{0, 0}, {0, 0}};
      if (doc_.root != config::Compressor::None)
        top = doc_.root_range;
      out_.push_back(
          {top, model_problem->severity, model_problem->code, model_problem->message, {}});
    }
    for (const config::SyntaxProblem& p : doc_.problems)
      out_.push_back({p.range, Severity::Error, p.code, p.message, {}});
    for (const config::DuplicateKey& d : doc_.duplicates)
      out_.push_back({d.duplicate,
                      Severity::Warning,
                      "duplicate-key",
                      "duplicate key `" + d.key + "` (first at line " +
                          std::to_string(d.first.start.line + 1) +
                          "): the later entry replaces the earlier one",
                      {}});
    for (const config::UnknownField& u : doc_.unknown_fields) {
      std::string message =
          "unknown field `" + u.name + "` in " + u.where + ": coreai-opt rejects the config";
      std::vector<Fix> fixes;
      std::vector<std::string> near = detail::nearest(u.name, u.valid, kSuggestions);
      if (near.empty() && u.valid.size() == 1) // the one field it can be (a root key)
        near = u.valid;
      if (!near.empty())
        message += "; did you mean " + join_quoted(near) + "?";
      else
        message += "; valid here: " + join_quoted(u.valid);
      for (const std::string& n : near)
        fixes.push_back(
            {"Replace with `" + n + "`", {u.range, detail::render_key(n, doc_.format, 0)}});
      out_.push_back({u.range, Severity::Error, "unknown-field", message, std::move(fixes)});
    }
    for (const config::UncheckedName& u : doc_.unchecked)
      out_.push_back({u.range,
                      Severity::Information,
                      "not-checked",
                      "not checked: opscope reads module and op names written as string literals "
                      "(or torch.nn classes), and this is " +
                          u.what,
                      {}});
    check_execution_mode();
    // An aliased key is listed once per place it is merged: check each written key
    // once, and call it unmatched only if it matches nothing in any of its scopes.
    std::map<std::pair<config::Position, Table>, std::vector<const PatternKey*>> written;
    std::vector<std::pair<config::Position, Table>> order;
    for (const PatternKey& key : doc_.keys) {
      auto id = std::make_pair(key.range.start, key.table);
      if (written[id].empty())
        order.push_back(id);
      written[id].push_back(&key);
    }
    // What coreai-opt's resolution makes of the entries (only when nothing above broke the
    // config: coreai-opt would not load it). Computed first: the module keys it matched need
    // no second matching of their pattern against every module name below.
    // One resolution per config object (a Python file may build several).
    std::vector<std::shared_ptr<const resolve::Resolution>> resolutions;
    std::shared_ptr<const resolve::EagerWeights> weights;
    if (doc_.problems.empty()) {
      for (std::size_t o = 0; o < doc_.objects.size(); ++o)
        if (auto r = detail::resolution_of(doc_, model_, static_cast<int>(o)))
          resolutions.push_back(std::move(r));
      // Eager mode: each parameter's spec, computed here off the typing path so that hovers
      // (tied weights) and the size find it ready.
      if (model_ && model_->resolution && model_->index &&
          resolve::resolves_eager_weights(doc_, *model_->index))
        weights = model_->resolution->weights(doc_, *model_->index, model_->queries);
    }
    module_keys_matched_.assign(doc_.keys.size(), false);
    for (const auto& resolution : resolutions)
      for (const resolve::EntryMatch& e : resolution->entries) {
        const auto k = static_cast<std::size_t>(e.key);
        // The root alone is left to the full check (it decides what "matched" means there).
        if (k < doc_.keys.size() && doc_.keys[k].table == Table::ModuleName &&
            std::any_of(e.modules.begin(), e.modules.end(), [](int m) { return m != 0; }))
          module_keys_matched_[k] = true;
      }
    for (const auto& id : order)
      check_key(written[id]);
    for (const auto& resolution : resolutions)
      for (Diagnostic& d : overridden_diagnostics(doc_, *index_, *resolution))
        out_.push_back(std::move(d));
    if (weights)
      for (Diagnostic& d : prepare_failures(doc_, *index_, *weights))
        out_.push_back(std::move(d));
    std::stable_sort(out_.begin(), out_.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return a.range.start < b.range.start;
    });
    return std::move(out_);
  }

private:
  Fix replace_with(const PatternKey& key, const std::string& value) {
    return {"Replace with `" + value + "`",
            {key.range, detail::render_key(value, doc_.format, key.quote, key.raw)}};
  }

  void add(const PatternKey& key, Severity severity, std::string code, std::string message,
           std::vector<Fix> fixes = {}) {
    out_.push_back({key.range, severity, std::move(code), std::move(message), std::move(fixes)});
  }

  void check_execution_mode() {
    if (!doc_.execution_mode)
      return;
    const std::string& mode = *doc_.execution_mode;
    std::optional<index::Mode> read = coreai::execution_mode_value(mode);
    if (!read) {
      out_.push_back({doc_.execution_mode_range,
                      Severity::Error,
                      "execution-mode",
                      "unknown execution_mode `" + mode + "`: use `graph` or `eager`",
                      {}});
      return;
    }
    std::string wanted = index::to_string(*read); // pt2e, coreai-opt's alias, is graph
    if (index_ && wanted != index::to_string(index_->mode))
      out_.push_back({doc_.execution_mode_range,
                      Severity::Warning,
                      "execution-mode",
                      std::string("the model was indexed in ") + index::to_string(index_->mode) +
                          " mode but this config runs in " + wanted +
                          " mode: op names differ between modes; re-index with --mode " + wanted,
                      {}});
  }

  void check_key(const std::vector<const PatternKey*>& instances) {
    const PatternKey& key = *instances.front();
    switch (key.table) {
    case Table::ModuleName:
    case Table::OpName:
      check_regex_key(instances);
      break;
    case Table::ModuleType:
      check_module_type(key);
      break;
    case Table::OpType:
      check_op_type(instances);
      break;
    }
  }

  // The resolution matched one of these places of the key to a module: its pattern compiled,
  // and it matches (one lookup fewer per key of a 50,000-key config).
  bool resolution_matched(const std::vector<const PatternKey*>& instances) const {
    return std::any_of(instances.begin(), instances.end(), [&](const PatternKey* instance) {
      auto k = static_cast<std::size_t>(instance - doc_.keys.data());
      return k < module_keys_matched_.size() && module_keys_matched_[k];
    });
  }

  void check_regex_key(const std::vector<const PatternKey*>& instances) {
    const PatternKey& key = *instances.front();
    if (key.table == Table::ModuleName && resolution_matched(instances))
      return;
    if (key.text.empty()) {
      add(key, Severity::Error, "empty-pattern",
          "empty pattern: write a module or op name (a full-match regular expression)");
      return;
    }
    detail::CompiledPattern c = detail::compile_pattern(key.text, queries_ ? &**queries_ : nullptr);
    if (c.status == index::PatternStatus::Kind::PythonOnly) {
      add(key, Severity::Warning, "python-only-regex",
          "this pattern uses " + c.error +
              ", which Python's re accepts but opscope (RE2) cannot evaluate: it is not checked");
      return;
    }
    if (c.status == index::PatternStatus::Kind::Invalid) {
      Diagnostic d;
      d.severity = Severity::Error;
      d.code = "invalid-regex";
      d.message = "invalid regular expression: " + c.error;
      d.range = key.range;
      if (c.error_offset < key.text.size() && key.byte_cols.size() == key.text.size() + 1 &&
          key.range.start.line == key.range.end.line) {
        d.range.start.byte_col = key.byte_cols[c.error_offset];
        d.range.end.byte_col = key.byte_cols[c.error_offset + 1];
        if (d.range.end.byte_col <= d.range.start.byte_col)
          d.range.end.byte_col = d.range.start.byte_col + 1;
      }
      out_.push_back(std::move(d));
      return;
    }
    if (!index_)
      return;
    bool matched = false;
    for (const PatternKey* instance : instances) {
      detail::Matches m =
          detail::match_key(*queries_, *instance, compressor_, detail::ModuleList::IfNoOps);
      matched = matched || !m.modules.empty() || !m.ops.empty();
    }
    if (matched)
      return;
    if (key.table == Table::ModuleName) {
      if (std::optional<std::string> idle = idle_module_matched(key)) {
        add(key, Severity::Warning, "no-match",
            (*idle == key.text ? "`" + key.text + "` is"
                               : "`" + key.text + "` matches `" + *idle + "`,") +
                " a module of the model that never runs in forward(): its weights are there, but "
                "no op was recorded under it, so coreai-opt configures nothing through this key");
        return;
      }
    }
    std::vector<std::string> names = candidate_names(key);
    std::vector<std::string> suggestions = detail::suggest_patterns(key.text, names, kSuggestions);
    std::string what = key.table == Table::ModuleName ? "module" : "op";
    std::string message = "`" + key.text + "` matches no " + what;
    if (key.table == Table::OpName && key.scope.kind != config::Scope::Kind::Global)
      message +=
          " inside " +
          std::string(key.scope.kind == config::Scope::Kind::ModuleType ? "modules of type `"
                                                                        : "modules matching `") +
          key.scope.key + "`";
    else
      message += " in the model";
    std::vector<Fix> fixes;
    if (!suggestions.empty()) {
      message += "; did you mean " + join_quoted(suggestions) + "?";
      for (const std::string& s : suggestions)
        fixes.push_back(replace_with(key, s));
    }
    add(key, Severity::Warning, "no-match", message, std::move(fixes));
  }

  // A module the model has but no op ran under, in itself or below it (it owns parameters,
  // or is recorded among named_modules(), and reaches no module of the tree; a container such
  // as `model.layers` reaches its blocks): the first one `key` fully matches.
  std::optional<std::string> idle_module_matched(const PatternKey& key) {
    if (!idle_modules_) {
      std::set<std::string> idle;
      for (const auto& [name, object] : index_->names_outside_tree())
        if (!name.empty() && index::modules_reached(*index_, {object}).empty())
          idle.insert(name);
      idle_modules_.emplace(idle.begin(), idle.end());
    }
    if (idle_modules_->empty())
      return std::nullopt;
    index::Query query(Table::ModuleName, key.text, false);
    for (const std::string& name : *idle_modules_)
      if (query.matches(name))
        return name;
    return std::nullopt;
  }

  std::vector<std::string> candidate_names(const PatternKey& key) {
    std::vector<std::string> names;
    if (key.table == Table::ModuleName) {
      if (!module_names_) { // the same for every module key: gathered once per check
        std::vector<std::string>& all = module_names_.emplace();
        for (const index::Module& m : index_->modules)
          if (!m.name.empty())
            all.push_back(m.name);
        for (const auto& [name, object] : index_->names_outside_tree()) // `model.layers`
          if (!name.empty() && !index::modules_reached(*index_, {object}).empty())
            all.push_back(name);
      }
      return *module_names_;
    } else {
      for (int i : queries_->scope_ops(key.scope))
        names.push_back(index_->ops[static_cast<std::size_t>(i)].name);
    }
    return names;
  }

  void check_module_type(const PatternKey& key) {
    std::string last =
        key.text.substr(key.text.rfind('.') == std::string::npos ? 0 : key.text.rfind('.') + 1);
    std::vector<std::string> types;
    if (index_) {
      std::set<std::string> seen;
      for (const index::Module& m : index_->modules)
        if (seen.insert(m.type).second)
          types.push_back(m.type);
      if (seen.count(key.text))
        return;
    }
    std::vector<std::string> qualified; // same class name, full path
    for (const std::string& t : types) {
      std::string t_last = t.substr(t.rfind('.') == std::string::npos ? 0 : t.rfind('.') + 1);
      if (t_last == last)
        qualified.push_back(t);
    }
    std::vector<Fix> fixes;
    if (key.text.find('.') == std::string::npos || !qualified.empty()) {
      std::string message = "module type `" + key.text +
                            "` is not a fully-qualified class name; coreai-opt compares the "
                            "full `module.Class` path exactly";
      if (!qualified.empty()) {
        message += ": use " + join_quoted(qualified);
        for (const std::string& q : qualified)
          fixes.push_back(replace_with(key, q));
      } else if (!index_) {
        message += " (e.g. `torch.nn.modules.linear.Linear`)";
      }
      add(key, Severity::Error, "module-type-not-qualified", message, std::move(fixes));
      return;
    }
    if (!index_)
      return;
    std::vector<std::string> near = detail::nearest(key.text, types, kSuggestions);
    std::string message = "no module of type `" + key.text + "` in the model";
    if (!near.empty()) {
      message += "; did you mean " + join_quoted(near) + "?";
      for (const std::string& n : near)
        fixes.push_back(replace_with(key, n));
    }
    add(key, Severity::Warning, "no-match", message, std::move(fixes));
  }

  void check_op_type(const std::vector<const PatternKey*>& instances) {
    const PatternKey& key = *instances.front();
    if (!index_)
      return;
    const auto& [valid, present, registered] = op_types();
    std::string who = compressor_ == index::Compressor::None
                          ? std::string("the model")
                          : std::string("the ") + index::to_string(compressor_);
    std::vector<Fix> fixes;
    for (const std::string& n : detail::nearest(key.text, valid, kSuggestions))
      fixes.push_back(replace_with(key, n));
    if (!present.count(key.text)) {
      add(key, Severity::Warning, "no-match",
          "no op of type `" + key.text + "` in the model; op types " +
              (compressor_ == index::Compressor::None ? std::string("in the model")
                                                      : who + " compresses here") +
              ": " + join_quoted(valid),
          std::move(fixes));
      return;
    }
    if (!registered.count(key.text)) {
      add(key, Severity::Warning, "not-compressible",
          who + " does not compress `" + key.text + "` ops; it compresses: " + join_quoted(valid),
          std::move(fixes));
      return;
    }
    bool in_scope = false;
    for (const PatternKey* instance : instances)
      in_scope = in_scope ||
                 !detail::match_key(*queries_, *instance, compressor_, detail::ModuleList::IfNoOps)
                      .ops.empty();
    if (!in_scope)
      add(key, Severity::Warning, "no-match",
          "no `" + key.text + "` op inside " +
              (key.scope.kind == config::Scope::Kind::ModuleType ? "modules of type `"
                                                                 : "modules matching `") +
              key.scope.key + "`");
  }

  // Op types in the model, and those the compressor registers (in model order): the same
  // for every op-type key, so gathered once per check.
  struct OpTypes {
    std::vector<std::string> valid;
    std::set<std::string> present, registered;
  };
  const OpTypes& op_types() {
    if (op_types_)
      return *op_types_;
    OpTypes& types = op_types_.emplace();
    for (const index::Op& op : index_->ops) {
      const std::string& type = index_->type_for(op, compressor_);
      if (op.kind != index::OpKind::Call || type.empty())
        continue;
      types.present.insert(type);
      if (op.compressible_by(compressor_) && types.registered.insert(type).second)
        types.valid.push_back(type);
    }
    return types;
  }

  const config::ConfigDocument& doc_;
  const Model* model_;
  const index::Index* index_;
  index::Compressor compressor_;
  std::optional<detail::ModelQueries> queries_; // set when there is a model
  // By position in doc_.keys: the module-name keys coreai-opt's resolution found matching a
  // module (not the root alone).
  std::vector<bool> module_keys_matched_;
  std::optional<std::vector<std::string>> module_names_; // candidate_names(), gathered once
  std::optional<OpTypes> op_types_;
  std::optional<std::vector<std::string>> idle_modules_; // idle_module_matched(), gathered once
  std::vector<Diagnostic> out_;
};

} // namespace

std::vector<Diagnostic> diagnose(const config::ConfigDocument& document, const Model* model,
                                 const std::optional<ModelProblem>& model_problem) {
  return Checker(document, model).run(model_problem);
}

} // namespace opscope::features
