#include "opscope/resolve/eager_weights.h"

#include "op_entry.h"
#include "opscope/coreai/config/values.h"
#include "opscope/index/query.h"
#include "state_specs.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

namespace opscope::resolve {
namespace {

using detail::default_state_spec;
using detail::last_matching;
using detail::local_names;
using detail::optimizable;
using detail::spec_dict;

using config::ConfigDocument;
using config::Table;
using json = nlohmann::ordered_json;

// Priority as _get_module_compression_components_and_priority assigns it (lower wins):
// ModuleDecision::priority; the module_state_spec sentinel is below all.
using Priority = int;
constexpr Priority kModuleStatePriority = -1;

class EagerResolver {
public:
  EagerResolver(const ConfigDocument& doc, const json& values, const index::Index& index,
                const Resolution* modules)
      : doc_(doc), values_(values), index_(index), compressor_(doc.root), modules_(modules) {}

  EagerWeights run() {
    if (modules_) {
      out_.unresolved = modules_->unresolved;
      decisions_ = modules_->modules;
    } else {
      Resolution modules = resolve_quantizer(doc_, index_);
      out_.unresolved = std::move(modules.unresolved);
      decisions_ = std::move(modules.modules);
    }
    prepare_modules();
    // Each tensor's owners, ascending (a scan of every module per tensor was quadratic:
    // GPT-384's 4,000 modules times its tensors).
    owners_.assign(index_.parameters.size(), {});
    for (std::size_t m = 0; m < index_.modules.size(); ++m)
      for (int p : index_.module_parameters(m))
        if (p >= 0 && static_cast<std::size_t>(p) < owners_.size())
          owners_[static_cast<std::size_t>(p)].push_back(static_cast<int>(m));
    out_.parameters.resize(index_.parameters.size());
    for (std::size_t p = 0; p < index_.parameters.size(); ++p)
      out_.parameters[p].parameter = static_cast<int>(p);
    cache_.resize(index_.parameters.size());
    std::vector<int> module_of(index_.ops.size(), 0);
    for (std::size_t m = 0; m < index_.modules.size(); ++m)
      for (int op : index_.modules[m].ops)
        if (op >= 0 && static_cast<std::size_t>(op) < module_of.size())
          module_of[static_cast<std::size_t>(op)] = static_cast<int>(m);
    for (std::size_t i = 0; i < index_.ops.size(); ++i)
      visit_op(static_cast<int>(i), index_.op_parameters(i), module_of[i]);
    return std::move(out_);
  }

private:
  struct ModuleConfig {
    json config;       // the module's config as written (null: full precision)
    json state_spec;   // op_state_spec, defaults applied
    json module_state; // module_state_spec (direct matches only)
    bool module_level = false;
    Priority priority = 0;
  };

  void prepare_modules() {
    const std::size_t n = index_.modules.size();
    configs_.resize(n);
    for (std::size_t m = 0; m < n; ++m) {
      const ModuleDecision& d = decisions_[m];
      ModuleConfig& c = configs_[m];
      c.config = detail::entry_config(doc_, values_, d.decider);
      const json fallback = c.config.is_null() && d.decider.kind != Decider::Kind::DefaultGlobal
                                ? json{{"*", nullptr}}
                                : default_state_spec(compressor_);
      c.state_spec = spec_dict(c.config, "op_state_spec", fallback);
      // _prepare_config_for_child: module-level specs stay with the module matched.
      if (d.direct) {
        c.module_state = spec_dict(c.config, "module_state_spec", json::object());
        for (const char* field : {"module_state_spec", "module_input_spec", "module_output_spec"})
          if (c.config.is_object() && c.config.contains(field) && !c.config[field].empty())
            c.module_level = true;
      }
      int parent = index_.modules[m].parent;
      if (parent >= 0 && configs_[static_cast<std::size_t>(parent)].module_level)
        c.module_level = true; // _fill_module_has_module_spec_dict: inherited downwards
      c.priority = d.priority;
    }
  }

  // The doc key of an op table entry in the module entry that decided `d`, for reporting.
  Decider op_key_decider(const Decider& module_decider, Table table, const std::string& text) {
    for (int k = static_cast<int>(doc_.keys.size()) - 1; k >= 0; --k) {
      const auto& key = doc_.keys[static_cast<std::size_t>(k)];
      if (key.table != table || key.text != text)
        continue;
      bool same_scope = false;
      if (module_decider.kind == Decider::Kind::Key) {
        const auto& owner = doc_.keys[static_cast<std::size_t>(module_decider.key)];
        same_scope = key.scope.kind != config::Scope::Kind::Global && key.scope.key == owner.text &&
                     (key.scope.kind == config::Scope::Kind::ModuleType) ==
                         (owner.table == Table::ModuleType);
      } else {
        same_scope = key.scope.kind == config::Scope::Kind::Global;
      }
      if (same_scope)
        return {Decider::Kind::Key, k};
    }
    return module_decider;
  }

  const index::Query& op_query(const std::string& pattern) {
    auto it = op_queries_.find(pattern);
    if (it == op_queries_.end())
      it = op_queries_
               .emplace(pattern,
                        std::make_unique<index::Query>(index::Table::OpName, pattern, false))
               .first;
    return *it->second;
  }

  // _get_op_compression_components (op_entry.h) over the module's config as written: the
  // spec dict of the op config that decides, else the module config's own op_state_spec.
  std::pair<json, Decider> op_state_spec(const index::Op& op, int module) {
    const ModuleConfig& c = configs_[static_cast<std::size_t>(module)];
    const Decider& decider = decisions_[static_cast<std::size_t>(module)].decider;
    if (!c.config.is_object())
      return {c.state_spec, decider};
    static const json::object_t kNoTable;
    auto table = [&](const char* field) -> const json::object_t& {
      auto it = c.config.find(field);
      return it != c.config.end() && it->is_object() ? it->get_ref<const json::object_t&>()
                                                     : kNoTable;
    };
    const json::object_t& names = table("op_name_config");
    const json::object_t& types = table("op_type_config");
    // ordered_map's operator[] takes a key: the i-th entry through its vector's iterators.
    auto nth = [](const json::object_t& t, std::size_t i) -> const auto& {
      return *(t.begin() + static_cast<std::ptrdiff_t>(i));
    };
    const detail::OpEntry entry = detail::op_entry(
        names.size(),
        [&](std::size_t i) {
          const index::Query& q = op_query(nth(names, i).first);
          return q.usable() && q.matches(op.name);
        },
        types.size(), [&](std::size_t i) -> const std::string& { return nth(types, i).first; },
        index_.type_for(op, compressor_));
    if (entry.level == detail::OpLevel::Module)
      return {c.state_spec, decider};
    const bool by_name = entry.level == detail::OpLevel::OpName;
    const auto& [key, op_config] = nth(by_name ? names : types, entry.at);
    json spec = op_config.is_null()
                    ? json{{"*", nullptr}}
                    : spec_dict(op_config, "op_state_spec", default_state_spec(compressor_));
    return {std::move(spec), op_key_decider(decider, by_name ? Table::OpName : Table::OpType, key)};
  }

  void visit_op(int op_index, const std::vector<int>& parameters, int module) {
    const index::Op& op = index_.ops[static_cast<std::size_t>(op_index)];
    if (op.kind != index::OpKind::Call)
      return;
    const bool registered = op.compressible_by(compressor_);
    const ModuleConfig& c = configs_[static_cast<std::size_t>(module)];
    if (!registered && !c.module_level)
      return;
    // An unregistered op under a module-level spec resolves with empty op components: its
    // module's entry leaves the tensor uncompressed (and, ranking first, for every reader).
    auto [spec_dict_for_op, op_decider] =
        registered
            ? op_state_spec(op, module)
            : std::pair{json::object(), decisions_[static_cast<std::size_t>(module)].decider};
    for (int p : parameters) {
      const index::Parameter& param = index_.parameters[static_cast<std::size_t>(p)];
      if (!optimizable(param))
        continue;
      auto& cached = cache_[static_cast<std::size_t>(p)];
      WeightDecision& out = out_.parameters[static_cast<std::size_t>(p)];
      if (out.readers.empty() || out.readers.back().op != op_index)
        out.readers.push_back(
            {op_index, module, op_decider, decisions_[static_cast<std::size_t>(module)].decider});
      if (cached && *cached < c.priority) // a strictly higher priority decided
        continue;
      const auto names = local_names(param);
      if (!cached && resolve_module_state(param, p, names, out)) {
        cached = kModuleStatePriority;
        continue;
      }
      auto match = last_matching(spec_dict_for_op, names);
      out.spec = match ? match->second : json(nullptr);
      out.spec_table = "op_state_spec";
      out.spec_key = match ? match->first : std::string();
      out.decider = op_decider;
      out.module = module;
      out.op = op_index;
      cached = c.priority;
    }
  }

  bool resolve_module_state(const index::Parameter&, int p, const std::vector<std::string>& names,
                            WeightDecision& out) {
    std::vector<int> owners = owners_[static_cast<std::size_t>(p)];
    std::stable_sort(owners.begin(), owners.end(), [&](int a, int b) {
      return configs_[static_cast<std::size_t>(a)].priority <
             configs_[static_cast<std::size_t>(b)].priority;
    });
    for (int m : owners) {
      const ModuleConfig& c = configs_[static_cast<std::size_t>(m)];
      if (!c.module_state.is_object() || c.module_state.empty())
        continue;
      if (auto match = last_matching(c.module_state, names)) {
        out.spec = match->second;
        out.spec_table = "module_state_spec";
        out.spec_key = match->first;
        out.decider = decisions_[static_cast<std::size_t>(m)].decider;
        out.module = m;
        return true;
      }
    }
    return false;
  }

  const ConfigDocument& doc_;
  const json& values_;
  const index::Index& index_;
  index::Compressor compressor_;
  const Resolution* modules_ = nullptr;
  std::vector<ModuleDecision> decisions_;
  std::vector<std::vector<int>> owners_; // Index::parameters -> owning modules
  std::vector<ModuleConfig> configs_;
  std::vector<std::optional<Priority>> cache_;
  std::unordered_map<std::string, std::unique_ptr<index::Query>> op_queries_;
  EagerWeights out_;
};

} // namespace

bool resolves_eager_weights(const config::ConfigDocument& document, const index::Index& index) {
  if (index.mode != index::Mode::Eager)
    return false;
  switch (document.root) {
  case config::Compressor::KMeansPalettizer:
  case config::Compressor::MagnitudePruner:
    return true;
  case config::Compressor::Quantizer:
    return coreai::config_mode(document.root, document.execution_mode) == index::Mode::Eager;
  default:
    return false;
  }
}

bool WeightDecision::shared() const {
  return std::any_of(readers.begin(), readers.end(),
                     [&](const Reader& r) { return r.module != readers.front().module; });
}

EagerWeights resolve_eager_weights(const config::ConfigDocument& document, const json& values,
                                   const index::Index& index, const Resolution* modules) {
  return EagerResolver(document, values, index, modules).run();
}

std::shared_ptr<const EagerWeights>
SharedResolution::weights(const config::ConfigDocument& document, const index::Index& index,
                          const index::QueryEngine* engine) const {
  std::lock_guard<std::mutex> lock(weights_mutex_);
  if (!weights_) {
    auto values = config::read_values(document);
    if (!values)
      weights_ = std::make_shared<const EagerWeights>();
    else
      weights_ = std::make_shared<const EagerWeights>(
          resolve_eager_weights(document, *values, index, get(document, index, engine).get()));
  }
  return weights_;
}

std::shared_ptr<const EagerWeights> SharedResolution::weights_if_ready() const {
  std::unique_lock<std::mutex> lock(weights_mutex_, std::try_to_lock);
  return lock.owns_lock() ? weights_ : nullptr;
}

} // namespace opscope::resolve
