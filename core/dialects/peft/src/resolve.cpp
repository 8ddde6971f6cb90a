// What get_peft_model does with a config, step by step as BaseTuner.inject_adapter does it.
#include "opscope/dialects/peft/resolve.h"

#include "default_targets.h"
#include "matching.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace opscope::dialects::peft {
namespace {

using detail::NameList;
using detail::Pattern;
using index::ModuleObject;

constexpr std::string_view kLinear = "torch.nn.modules.linear.Linear";
constexpr std::string_view kConv1D = "transformers.pytorch_utils.Conv1D";
constexpr std::string_view kEmbedding = "torch.nn.modules.sparse.Embedding";
constexpr std::string_view kConv1d = "torch.nn.modules.conv.Conv1d";
constexpr std::string_view kConv2d = "torch.nn.modules.conv.Conv2d";
constexpr std::string_view kConv3d = "torch.nn.modules.conv.Conv3d";
constexpr std::string_view kMultiheadAttention = "torch.nn.modules.activation.MultiheadAttention";
constexpr std::string_view kPreTrainedModel = "transformers.modeling_utils.PreTrainedModel";

std::vector<std::string> texts(const std::vector<Written>& written) {
  std::vector<std::string> out;
  for (const Written& w : written)
    out.push_back(w.text);
  return out;
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    auto comma = s.find(',');
    out.emplace_back(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
  }
  return out;
}

std::string python_set(const std::vector<std::string>& names) {
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i ? ", '" : "'") + names[i] + "'";
  return out + "}";
}

// What LoRA's dispatch_default makes of a module (tuners/lora/layer.py), in its order.
enum class Layer { None, Embedding, Conv, MultiheadAttention, Linear, Conv1D };
Layer lora_layer(const ModuleObject& m) {
  if (m.is_a(kEmbedding))
    return Layer::Embedding;
  if (m.is_a(kConv2d) || m.is_a(kConv3d) || m.is_a(kConv1d))
    return Layer::Conv;
  if (m.is_a(kMultiheadAttention))
    return Layer::MultiheadAttention;
  if (m.is_a(kLinear))
    return Layer::Linear;
  if (m.is_a(kConv1D))
    return Layer::Conv1D;
  return Layer::None;
}

class Resolver {
public:
  Resolver(const PeftConfig& config, const index::Index& model)
      : c_(config), model_(model), modules_(model.named_modules()) {}

  Resolution run() {
    r_.target_matches.resize(c_.target_names.size());
    r_.exclude_matches.resize(c_.exclude_names.size());
    r_.rank_matches.resize(c_.rank_pattern.size());
    r_.alpha_matches.resize(c_.alpha_pattern.size());
    r_.saved_matches.resize(c_.modules_to_save.size());
    if (!config_accepted() || !prepare_targets())
      return std::move(r_);
    inject();
    if (!r_.error)
      save_modules();
    count();
    return std::move(r_);
  }

private:
  bool lora() const { return c_.class_name == "LoraConfig"; }

  void fail(std::string code, std::string message, std::optional<config::Range> where) {
    if (r_.error)
      return;
    r_.error_code = std::move(code);
    r_.error = std::move(message);
    r_.error_range = where ? *where : c_.anchor;
  }

  // LoraConfig.__post_init__'s refusals of layer selections (before any model is seen).
  bool config_accepted() {
    if (!lora())
      return true;
    bool string_targets = c_.target_regex || c_.all_linear;
    if (string_targets && !c_.layers_to_transform.empty())
      fail("layers-with-regex",
           "`layers_to_transform` cannot be used when `target_modules` is a str.",
           c_.layers_to_transform.front().second);
    else if (string_targets && !c_.layers_pattern.empty())
      fail("layers-with-regex", "`layers_pattern` cannot be used when `target_modules` is a str.",
           c_.layers_pattern.front().range);
    else if (!c_.layers_pattern.empty() && c_.layers_to_transform.empty())
      fail("layers-pattern-alone",
           "When `layers_pattern` is specified, `layers_to_transform` must also be specified.",
           c_.layers_pattern.front().range);
    return !r_.error;
  }

  const std::string& model_type() const { return modules_.front().model_type; }
  bool pretrained_root() const {
    return !modules_.empty() && modules_.front().is_a(kPreTrainedModel);
  }

  // target_modules as PEFT holds it after _prepare_adapter_config and all-linear's expansion:
  // a regex, or a list of names.
  bool prepare_targets() {
    if (c_.target_regex) {
      regex_.emplace(c_.target_regex->text);
      if (!regex_->ok()) {
        fail("regex", "opscope cannot read this regular expression (" + regex_->error() + ")",
             c_.target_regex->range);
        return false;
      }
      return true;
    }
    if (c_.all_linear) {
      expand_all_linear();
      list_.emplace(all_linear_names_);
      return true;
    }
    if (c_.target_modules_set) {
      list_.emplace(texts(c_.target_names));
      return true;
    }
    // Unset: the architecture's default (LoRA's table), else target_parameters alone. On the
    // MoE models PEFT rewrites for transformers v5, unset has become an empty set first.
    std::vector<std::string> moe = split_commas(detail::kV5MoeModelTypes);
    bool rewritten = lora() && std::find(moe.begin(), moe.end(), model_type()) != moe.end();
    if (rewritten) {
      list_.emplace(std::vector<std::string>{});
      return true;
    }
    for (const detail::DefaultTargets& d : detail::kLoraDefaultTargets) {
      if (d.model_type != model_type() || model_type().empty())
        continue;
      if (!d.regex.empty()) {
        r_.default_regex = std::string(d.regex);
        regex_.emplace(*r_.default_regex);
      } else {
        r_.default_targets = split_commas(d.names);
        list_.emplace(r_.default_targets);
      }
      return true;
    }
    if (c_.target_parameters.empty()) {
      fail("no-target",
           "Please specify `target_modules` or `target_parameters` in `peft_config`: PEFT has no "
           "default targets for " +
               (model_type().empty() ? std::string("this model")
                                     : "model type '" + model_type() + "'"),
           c_.anchor);
      return false;
    }
    return true;
  }

  // _maybe_include_all_linear_layers: every Linear / Conv1D, without the output layer.
  void expand_all_linear() {
    std::vector<bool> leave_out(modules_.size(), false);
    bool head_found = false;
    if (pretrained_root()) {
      for (std::size_t i = 0; i < modules_.size(); ++i)
        if (modules_[i].output_embeddings) {
          leave_out[i] = true;
          head_found = true;
          break;
        }
      if (!head_found && c_.task_type && c_.task_type->text == "SEQ_CLS")
        for (std::string_view head : {"score", "classifier"})
          if (int at = model_.find_module_object(std::string(head)); at >= 0) {
            leave_out[static_cast<std::size_t>(at)] = true;
            break;
          }
    }
    for (std::size_t i = 0; i < modules_.size(); ++i)
      if ((modules_[i].is_a(kLinear) || modules_[i].is_a(kConv1D)) && !leave_out[i]) {
        all_linear_names_.push_back(modules_[i].name);
        r_.all_linear_set.push_back(static_cast<int>(i));
      }
  }

  // check_target_module_exists, plus the per-entry bookkeeping for hover and no-match.
  enum class Verdict { Excluded, Unmatched, Targeted };
  Verdict check(const std::string& key, int at, int& entry) {
    bool excluded = false;
    if (exclude_regex_ && exclude_regex_->matches(key))
      excluded = true;
    if (exclude_list_) {
      std::vector<int> hits = exclude_list_->entries_matching(key);
      for (int h : hits)
        r_.exclude_matches[static_cast<std::size_t>(h)].push_back(at);
      excluded = excluded || !hits.empty();
    }
    if (excluded)
      return Verdict::Excluded;
    for (const Pattern& p : saved_exclusions_)
      if (p.matches(key))
        return Verdict::Excluded;
    if (regex_) {
      if (regex_->matches(key)) {
        r_.regex_matches.push_back(at);
        return Verdict::Targeted;
      }
      return Verdict::Unmatched;
    }
    if (!list_)
      return Verdict::Unmatched; // target_parameters alone
    bool found = false;
    if (c_.target_modules_set && !c_.all_linear) {
      std::vector<int> hits = names_->entries_matching(key);
      for (int h : hits)
        r_.target_matches[static_cast<std::size_t>(h)].push_back(at);
      if (!hits.empty())
        entry = hits.front();
      found = !hits.empty();
    } else {
      found = list_->matches(key);
    }
    // An exact name skips the layer selection (PEFT's `elif key in config.target_modules`).
    if (found && !c_.layers_to_transform.empty() && !list_->contains(key)) {
      if (!layers_)
        layers_.emplace(texts(c_.layers_pattern));
      std::optional<long long> layer = layers_->of(key);
      found = layer && std::any_of(c_.layers_to_transform.begin(), c_.layers_to_transform.end(),
                                   [&](const auto& l) { return l.first == *layer; });
    }
    if (found && (!c_.target_modules_set || c_.all_linear))
      r_.regex_matches.push_back(at);
    return found ? Verdict::Targeted : Verdict::Unmatched;
  }

  void inject() {
    if (c_.exclude_regex) {
      exclude_regex_.emplace(c_.exclude_regex->text);
      if (!exclude_regex_->ok())
        return fail("regex",
                    "opscope cannot read this regular expression (" + exclude_regex_->error() + ")",
                    c_.exclude_regex->range);
    } else if (!c_.exclude_names.empty()) {
      exclude_list_.emplace(texts(c_.exclude_names));
    }
    for (const Written& m : c_.modules_to_save)
      saved_names_.push_back(m.text);
    // PeftModelForSequenceClassification / ForTokenClassification save the head too.
    if (c_.task_type && (c_.task_type->text == "SEQ_CLS" || c_.task_type->text == "TOKEN_CLS"))
      for (const char* head : {"classifier", "score"})
        saved_names_.push_back(head);
    for (const std::string& m : saved_names_)
      saved_exclusions_.push_back(detail::saved_exclusion(m));
    if (c_.target_modules_set && !c_.all_linear && !c_.target_regex)
      names_.emplace(texts(c_.target_names));
    std::vector<Pattern> rank_keys, alpha_keys;
    for (const auto& [key, _] : c_.rank_pattern)
      rank_keys.push_back(detail::pattern_key(key.text));
    for (const auto& [key, _] : c_.alpha_pattern)
      alpha_keys.push_back(detail::pattern_key(key.text));

    bool excluded = false, unmatched = false;
    for (std::size_t i = 1; i < modules_.size(); ++i) {
      const std::string& key = modules_[i].name;
      if (key.empty())
        continue;
      int entry = -1;
      Verdict v = check(key, static_cast<int>(i), entry);
      excluded = excluded || v == Verdict::Excluded;
      unmatched = unmatched || v == Verdict::Unmatched;
      if (v != Verdict::Targeted)
        continue;
      Wrapped w;
      w.module = static_cast<int>(i);
      w.target_entry = entry;
      w.rank = c_.r;
      w.alpha = c_.lora_alpha;
      for (std::size_t k = 0; k < rank_keys.size(); ++k)
        if (rank_keys[k].matches(key)) { // get_pattern_key: the first key that matches
          w.rank = c_.rank_pattern[k].second;
          w.rank_key = static_cast<int>(k);
          break;
        }
      for (std::size_t k = 0; k < alpha_keys.size(); ++k)
        if (alpha_keys[k].matches(key)) {
          w.alpha = c_.alpha_pattern[k].second;
          w.alpha_key = static_cast<int>(k);
          break;
        }
      if (lora() && !modules_[i].type.empty() && lora_layer(modules_[i]) == Layer::None) {
        fail("unsupported-module",
             "Target module " + key + " (" + modules_[i].type +
                 ") is not supported: LoRA wraps only torch.nn.Linear, Embedding, Conv1d, Conv2d, "
                 "Conv3d, MultiheadAttention and transformers' Conv1D",
             entry_range(entry));
        r_.wrapped.push_back(w);
        return; // PEFT raises here
      }
      if (lora() && w.rank <= 0) {
        fail("rank",
             "`r` should be a positive integer value but the value passed is " +
                 std::to_string(w.rank),
             w.rank_key >= 0 ? c_.rank_pattern[static_cast<std::size_t>(w.rank_key)].first.range
                             : c_.anchor);
        return;
      }
      r_.wrapped.push_back(w);
    }
    for (const Wrapped& w : r_.wrapped) {
      if (w.rank_key >= 0)
        r_.rank_matches[static_cast<std::size_t>(w.rank_key)].push_back(w.module);
      if (w.alpha_key >= 0)
        r_.alpha_matches[static_cast<std::size_t>(w.alpha_key)].push_back(w.module);
    }
    // rank_pattern / alpha_pattern keys: hover lists every wrapped module a key matches.
    for (std::size_t k = 0; k < rank_keys.size(); ++k)
      fill_key_matches(rank_keys[k], r_.rank_matches[k]);
    for (std::size_t k = 0; k < alpha_keys.size(); ++k)
      fill_key_matches(alpha_keys[k], r_.alpha_matches[k]);
    inject_parameters();
    if (r_.error || !r_.wrapped.empty() || !r_.wrapped_parameters.empty())
      return;
    std::string layers;
    if (!c_.layers_to_transform.empty()) {
      layers = " Note: You specified 'layers_to_transform'.";
    }
    if (excluded && !unmatched)
      fail("all-excluded",
           "All modules were excluded. This is likely unintended. Check your `target_modules`, "
           "`exclude_modules` and `modules_to_save` configuration.",
           c_.anchor);
    else if (!excluded && unmatched && !regex_ && target_list_empty())
      fail("no-target",
           "No `target_modules` passed but also no `target_parameters` found. Please check the "
           "values for these arguments.",
           c_.anchor);
    else if (!excluded && unmatched)
      fail("no-match", "Target modules " + target_text() + " not found in the base model." + layers,
           target_range());
    else
      fail("targets-excluded",
           "No modules were targeted for adaptation: the target modules that match are excluded "
           "(exclude_modules, modules_to_save)." +
               layers,
           target_range());
  }

  // `not peft_config.target_modules`: None, or an empty list (all-linear on a model without one).
  bool target_list_empty() const {
    if (c_.all_linear)
      return all_linear_names_.empty();
    if (c_.target_modules_set)
      return c_.target_names.empty();
    return r_.default_targets.empty();
  }

  void fill_key_matches(const Pattern& key, std::vector<int>& out) {
    out.clear();
    for (const Wrapped& w : r_.wrapped)
      if (key.matches(modules_[static_cast<std::size_t>(w.module)].name))
        out.push_back(w.module);
  }

  std::string target_text() const {
    if (c_.target_regex)
      return c_.target_regex->text;
    if (c_.all_linear)
      return python_set(all_linear_names_);
    if (!c_.target_modules_set)
      return r_.default_regex ? *r_.default_regex : python_set(r_.default_targets);
    return python_set(texts(c_.target_names));
  }
  config::Range target_range() const {
    if (c_.target_regex)
      return c_.target_regex->range;
    if (c_.all_linear)
      return c_.all_linear->range;
    if (!c_.target_names.empty())
      return c_.target_names.front().range;
    return c_.anchor;
  }
  std::optional<config::Range> entry_range(int entry) const {
    if (entry >= 0)
      return c_.target_names[static_cast<std::size_t>(entry)].range;
    return target_range();
  }

  // _inject_parameters: a parameter owned directly by a module, by `name in targets` or a
  // dot-suffix.
  void inject_parameters() {
    if (c_.target_parameters.empty() || r_.error)
      return;
    NameList targets(texts(c_.target_parameters));
    std::vector<bool> wrapped(modules_.size(), false);
    for (const Wrapped& w : r_.wrapped)
      wrapped[static_cast<std::size_t>(w.module)] = true;
    for (const index::Parameter& p : model_.parameters) {
      if (p.buffer)
        continue;
      for (const std::string* name : names_of(p)) {
        if (!targets.matches(*name))
          continue;
        std::string owner = index::owner_module_name(*name);
        if (owner.empty())
          return fail("parameter-on-root",
                      "Targeting an nn.Parameter on the top-level module is not supported "
                      "(parameter '" +
                          *name + "')",
                      c_.target_parameters.front().range);
        int at = model_.find_module_object(owner);
        if (at >= 0 && wrapped[static_cast<std::size_t>(at)])
          return fail("parameter-of-target",
                      "Trying to wrap an nn.Parameter of layer '" + owner +
                          "', which target_modules wraps already",
                      c_.target_parameters.front().range);
        r_.wrapped_parameters.push_back(*name);
      }
    }
  }

  static std::vector<const std::string*> names_of(const index::Parameter& p) {
    std::vector<const std::string*> out{&p.name};
    for (const std::string& a : p.aliases)
      out.push_back(&a);
    return out;
  }

  // _set_trainable: every name of named_modules(remove_duplicate=False) that ends with an entry
  // (plain endswith, no dot boundary) gets a ModulesToSaveWrapper holding a trained copy. The
  // names are those after LoRA's injection: each wrapped module has gained children (base_layer,
  // the lora_* dicts and their `default` entries), which an entry can match too.
  void save_modules() {
    if (saved_names_.empty())
      return;
    std::vector<bool> wrapped(modules_.size(), false);
    for (const Wrapped& w : r_.wrapped)
      wrapped[static_cast<std::size_t>(w.module)] = true;
    auto entry_of = [&](const std::string& name) -> int {
      for (std::size_t e = 0; e < saved_names_.size(); ++e)
        if (name.ends_with(saved_names_[e]))
          return static_cast<int>(e);
      return -1;
    };
    for (std::size_t i = 1; i < modules_.size() && !r_.error; ++i) {
      std::vector<const std::string*> names{&modules_[i].name};
      for (const std::string& a : modules_[i].aliases)
        names.push_back(&a);
      bool saved = false;
      for (const std::string* name : names) {
        int e = entry_of(*name);
        if (e < 0)
          continue;
        if (static_cast<std::size_t>(e) < r_.saved_matches.size())
          r_.saved_matches[static_cast<std::size_t>(e)].push_back(static_cast<int>(i));
        if (wrapped[i] || is_container(modules_[i]))
          return fail("save-unwrappable",
                      "modules_to_save cannot be applied to " + *name + " (" +
                          (wrapped[i] ? std::string("a LoRA layer") : modules_[i].type) + ")",
                      saved_range(e));
        saved = true;
      }
      if (saved) {
        saved_copies_.push_back(static_cast<std::int64_t>(parameters_under(modules_[i].name)));
        r_.saved.push_back(static_cast<int>(i));
      }
      if (!wrapped[i])
        continue;
      // LoRA's own children of a wrapped module, as named_modules() lists them after injection.
      const std::string& w = modules_[i].name;
      bool embedding = lora_layer(modules_[i]) == Layer::Embedding;
      if (int e = entry_of(w + ".base_layer"); e >= 0) {
        saved_copies_.push_back(parameters_under(w)); // a copy of the base layer
        r_.saved.push_back(static_cast<int>(i));
      }
      for (const char* child : {"lora_dropout", "lora_A", "lora_B", "lora_embedding_A",
                                "lora_embedding_B", "lora_magnitude_vector"})
        if (int e = entry_of(w + "." + child); e >= 0)
          return fail("save-unwrappable",
                      "modules_to_save cannot be applied to " + w + "." + child +
                          " (LoRA's own ModuleDict)",
                      saved_range(e));
      for (const char* child : {"lora_dropout.default", "lora_A.default", "lora_B.default"}) {
        if (embedding && std::string_view(child) != "lora_dropout.default")
          continue;
        if (int e = entry_of(w + "." + child); e >= 0)
          return fail("save-unwrappable",
                      "modules_to_save matches " + w + "." + child +
                          ", inside a LoRA layer: the adapter's own module",
                      saved_range(e));
      }
    }
  }

  // ModulesToSaveWrapper.check_module's forbidden classes.
  static bool is_container(const ModuleObject& m) {
    for (std::string_view c :
         {"torch.nn.modules.container.ModuleDict", "torch.nn.modules.container.ModuleList",
          "torch.nn.modules.container.ParameterDict", "torch.nn.modules.container.ParameterList"})
      if (m.is_a(c))
        return true;
    return false;
  }

  config::Range saved_range(int e) const {
    if (e >= 0 && static_cast<std::size_t>(e) < c_.modules_to_save.size())
      return c_.modules_to_save[static_cast<std::size_t>(e)].range;
    return c_.task_type ? c_.task_type->range : c_.anchor;
  }

  // The parameters under module `m` (recursively, each tensor once).
  std::int64_t parameters_under(const std::string& prefix) const {
    std::int64_t total = 0;
    for (const index::Parameter& p : model_.parameters) {
      if (p.buffer)
        continue;
      for (const std::string* name : names_of(p))
        if (prefix.empty() || name->starts_with(prefix + ".")) {
          total += p.numel();
          break;
        }
    }
    return total;
  }

  // LoRA's adapter parameters on one module (lora_A + lora_B), from its weight's shape.
  std::int64_t lora_parameters(const Wrapped& w, bool& known) const {
    const ModuleObject& m = modules_[static_cast<std::size_t>(w.module)];
    const index::Parameter* weight = model_.find_parameter(m.name + ".weight");
    Layer layer = lora_layer(m);
    if (!weight || weight->shape.size() < 2 || layer == Layer::MultiheadAttention ||
        layer == Layer::None) {
      known = false;
      return 0;
    }
    const auto& s = weight->shape;
    std::int64_t r = w.rank;
    switch (layer) {
    case Layer::Linear:
      return r * (s[0] + s[1]); // (out, in)
    case Layer::Conv1D:
    case Layer::Embedding:
      return r * (s[0] + s[1]); // (in, out) / (num, dim)
    case Layer::Conv: {
      // lora_A: conv(in, r, kernel); lora_B: conv(r, out, 1). Groups are not recorded: 1.
      std::int64_t kernel = 1;
      for (std::size_t d = 2; d < s.size(); ++d)
        kernel *= s[d];
      return r * s[1] * kernel + s[0] * r;
    }
    default:
      known = false;
      return 0;
    }
  }

  void count() {
    std::int64_t base = parameters_under("");
    bool known = lora() && !c_.use_dora && r_.wrapped_parameters.empty() && !r_.error;
    if (r_.error) { // get_peft_model raises: nothing is trained
      r_.trainable_parameters = 0;
      r_.all_parameters = base;
      r_.counted = false;
      return;
    }
    std::int64_t adapters = 0;
    for (Wrapped& w : r_.wrapped) {
      w.trainable_parameters = lora() ? lora_parameters(w, known) : 0;
      adapters += w.trainable_parameters;
    }
    std::int64_t saved = 0;
    for (std::int64_t copy : saved_copies_)
      saved += copy;
    r_.trainable_parameters = adapters + saved;
    r_.all_parameters = base + adapters + saved;
    r_.counted = known;
  }

  const PeftConfig& c_;
  const index::Index& model_;
  const std::vector<ModuleObject>& modules_;
  Resolution r_;
  std::optional<Pattern> regex_, exclude_regex_;
  std::optional<NameList> list_, exclude_list_, names_;
  std::vector<std::string> saved_names_; // modules_to_save, then the heads a task type adds
  std::vector<Pattern> saved_exclusions_;
  std::optional<detail::LayerIndex> layers_;
  std::vector<std::string> all_linear_names_;
  std::vector<std::int64_t> saved_copies_; // the parameters of each trained copy
};

} // namespace

Resolution resolve(const PeftConfig& config, const index::Index& model) {
  if (model.named_modules().empty()) {
    Resolution r;
    return r;
  }
  return Resolver(config, model).run();
}

} // namespace opscope::dialects::peft
