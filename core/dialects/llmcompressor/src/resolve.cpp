// What initialize_quantization does with a modifier, step by step as llm-compressor and
// compressed-tensors do it: resolve the config groups, match every module in
// apply_quantization_config's order (a bad `re:` pattern raises where Python first evaluates
// it), pick the most specific target's scheme, check group sizes, resolve the mappings.
#include "opscope/dialects/llmcompressor/resolve.h"

#include "matching.h"

#include <algorithm>
#include <map>

namespace opscope::dialects::llmcompressor {
namespace {

using detail::Target;
using index::ModuleObject;

constexpr std::string_view kLinear = "torch.nn.modules.linear.Linear";
constexpr std::string_view kEmbedding = "torch.nn.modules.sparse.Embedding";

class Resolver {
  struct Key {
    std::size_t entry; // first entry of r_.targets with this string
    int group;         // the last group that lists it
  };

public:
  Resolver(const Modifier& modifier, const index::Index& model, const detail::EntryMatches* memo)
      : m_(modifier), model_(model), modules_(model.named_modules()), memo_(memo) {}

  Resolution run() {
    bool fields_ok = known_fields();
    bool ok = resolve_groups() && fields_ok;
    compile();
    record_entry_matches();
    bool mixin = quantizes(m_.class_name) && m_.source != Source::CheckpointJson;
    if (ok && mixin && !has_config() && m_.class_name == "QuantizationModifier") {
      fail("no-config", "QuantizationModifier requires that quantization fields be specified",
           m_.anchor);
      ok = false;
    }
    // GPTQ without a config of its own quantizes what an earlier modifier set up: nothing here.
    if (ok && quantizes(m_.class_name) && (!mixin || has_config()))
      ok = apply();
    if (ok && mixin && has_config() && !m_.bypass_divisibility_checks)
      ok = check_group_sizes();
    // At calibration start.
    if (ok && m_.class_name == "GPTQModifier" && !quantizes_weights()) {
      fail("nothing-quantized",
           "GPTQModifier was unable to find any modules to quantize. Please check quantization "
           "`config_groups` and `targets` in recipe",
           m_.anchor);
      ok = false;
    }
    if (ok || r_.error_code != "regex")
      resolve_mappings();
    return std::move(r_);
  }

private:
  void fail(std::string code, std::string message, std::optional<config::Range> where) {
    if (r_.error)
      return;
    r_.error_code = std::move(code);
    r_.error = std::move(message);
    r_.error_range = where ? *where : m_.anchor;
  }

  std::vector<Written> default_targets() const {
    if (m_.targets_set)
      return m_.targets;
    return {Written{"Linear", config::Range{}}};
  }

  // pydantic's extra='forbid': a field the class does not have.
  bool known_fields() {
    const std::vector<std::string>& known = modifier_fields(m_.class_name);
    if (known.empty())
      return true;
    for (const Written& f : m_.fields)
      if (std::find(known.begin(), known.end(), f.text) == known.end()) {
        fail("field",
             "Extra inputs are not permitted: " + m_.class_name + " has no field `" + f.text + "`",
             f.range);
        return false;
      }
    return true;
  }

  // QuantizationMixin.has_config: anything besides the defaults written.
  bool has_config() const {
    bool default_targets =
        !m_.targets_set || (m_.targets.size() == 1 && m_.targets.front().text == "Linear");
    return !(!m_.config_groups_set && default_targets && m_.ignore.empty() && !m_.scheme &&
             m_.scheme_targets.empty() && !m_.kv_cache_scheme);
  }

  // GPTQ's calibration hooks: some module other than an Embedding got weights to quantize.
  bool quantizes_weights() const {
    for (const Applied& a : r_.applied)
      if (!modules_[static_cast<std::size_t>(a.module)].is_a(kEmbedding) &&
          r_.groups[static_cast<std::size_t>(a.group)].scheme.weights)
        return true;
    return false;
  }

  // A group's arguments as QuantizationScheme validates them.
  bool validated(const SchemeArgs& args, Scheme& out) {
    struct Role {
      const std::optional<QuantArgs>* written;
      std::optional<Quant>* into;
    };
    for (Role role :
         {Role{&args.weights, &out.weights}, Role{&args.input_activations, &out.input_activations},
          Role{&args.output_activations, &out.output_activations}}) {
      if (!*role.written)
        continue;
      Validated v = validate(**role.written);
      if (!v.quant) {
        fail("args", v.error, (*role.written)->range);
        return false;
      }
      *role.into = v.quant;
    }
    if (out.input_activations) {
      const std::string& s = out.input_activations->strategy;
      if (s != "token" && s != "tensor" && s != "group" && s != "tensor_group" &&
          s != "attn_head") {
        fail("args", "Using " + s + " strategy is not supported for activation quantization",
             args.input_activations->range);
        return false;
      }
      if (args.input_activations->actorder) {
        fail("args", "Cannot apply actorder to input activations", args.input_activations->range);
        return false;
      }
    }
    if (out.output_activations && args.output_activations->actorder) {
      fail("args", "Cannot apply actorder to output activations", args.output_activations->range);
      return false;
    }
    return true;
  }

  // QuantizationMixin.validate_scheme and resolve_quantization_config (a checkpoint's
  // config_groups are its groups as written).
  bool resolve_groups() {
    if (!quantizes(m_.class_name)) {
      for (const Written& t : m_.targets)
        r_.targets.push_back({t, -1});
      return true;
    }
    if (m_.scheme && !preset_scheme(m_.scheme->text)) {
      fail("scheme",
           "`scheme` must either be a preset scheme name or a dictionary of preset scheme names "
           "(" +
               m_.scheme->text + " is not one of " + std::to_string(preset_names().size()) +
               " presets)",
           m_.scheme->range);
      return false;
    }
    for (const auto& [name, _] : m_.scheme_targets)
      if (!preset_scheme(name.text)) {
        fail("scheme",
             "`scheme` must either be a preset scheme name or a dictionary of preset scheme "
             "names (" +
                 name.text + " is not a preset)",
             name.range);
        return false;
      }
    bool has_scheme = m_.scheme || !m_.scheme_targets.empty();
    // Checked in order by pydantic: the groups' own validation first, then the model's.
    for (const ConfigGroup& g : m_.config_groups) {
      Scheme s;
      if (!validated(g.args, s))
        return false;
    }
    if (has_scheme && m_.config_groups_set) {
      fail("scheme-and-groups", "Please specify either `scheme` or `config_groups`",
           m_.scheme ? m_.scheme->range : m_.scheme_targets.front().first.range);
      return false;
    }
    if (has_scheme) {
      std::vector<std::pair<Written, std::vector<Written>>> presets = m_.scheme_targets;
      if (m_.scheme)
        presets = {{*m_.scheme, default_targets()}};
      for (std::size_t i = 0; i < presets.size(); ++i) {
        Group g;
        g.name = "group_" + std::to_string(i);
        g.preset = presets[i].first.text;
        g.scheme = *preset_scheme(presets[i].first.text);
        r_.groups.push_back(g);
        for (const Written& t : presets[i].second)
          r_.targets.push_back({t, static_cast<int>(i)});
      }
      return true;
    }
    if (!m_.config_groups.empty()) {
      for (std::size_t i = 0; i < m_.config_groups.size(); ++i) {
        const ConfigGroup& cg = m_.config_groups[i];
        Group g;
        g.name = cg.name.text;
        validated(cg.args, g.scheme);
        if (cg.format)
          g.format = cg.format->text;
        r_.groups.push_back(g);
        for (const Written& t : cg.targets)
          r_.targets.push_back({t, static_cast<int>(i)});
      }
      return true;
    }
    // Nothing says how: group_0 = QuantizationScheme(targets=targets), which quantizes nothing.
    r_.groups.push_back(Group{"group_0", std::nullopt, Scheme{}, std::nullopt});
    for (const Written& t : default_targets())
      r_.targets.push_back({t, 0});
    return true;
  }

  void compile() {
    for (const TargetEntry& t : r_.targets)
      targets_.emplace_back(t.text.text).bind(model_, memo_);
    for (const Written& w : m_.ignore)
      ignores_.emplace_back(w.text).bind(model_, memo_);
    // target_to_scheme: an OrderedDict, so a string written twice keeps its first place and
    // its last group.
    for (std::size_t i = 0; i < r_.targets.size(); ++i) {
      const std::string& text = r_.targets[i].text.text;
      auto at = std::find_if(keys_.begin(), keys_.end(),
                             [&](const Key& k) { return targets_[k.entry].text() == text; });
      if (at == keys_.end())
        keys_.push_back({i, r_.targets[i].group});
      else
        at->group = r_.targets[i].group;
    }
    sorted_ = keys_;
    std::sort(sorted_.begin(), sorted_.end(), [&](const Key& a, const Key& b) {
      return detail::target_order(targets_[a.entry].text(), targets_[b.entry].text());
    });
  }

  bool is_match(const Target& t, std::size_t module) const { return t.matches(module); }

  void record_entry_matches() {
    r_.target_matches.assign(targets_.size(), {});
    r_.ignore_matches.assign(ignores_.size(), {});
    for (std::size_t i = 0; i < modules_.size(); ++i) {
      for (std::size_t t = 0; t < targets_.size(); ++t)
        if (is_match(targets_[t], i))
          r_.target_matches[t].push_back(static_cast<int>(i));
      for (std::size_t t = 0; t < ignores_.size(); ++t)
        if (is_match(ignores_[t], i))
          r_.ignore_matches[t].push_back(static_cast<int>(i));
    }
  }

  // A `re:` pattern Python evaluates here raises: stop, as apply_quantization_config does.
  bool reached(const Target& t, const Written& written) {
    if (!t.bad())
      return true;
    fail("regex", t.problem(), written.range);
    return false;
  }

  // apply_quantization_config: match_named_modules(model, target_to_scheme, ignore), then
  // match_targets' most specific target decides the scheme.
  bool apply() {
    for (std::size_t i = 0; i < modules_.size(); ++i) {
      for (const Key& k : keys_) {
        const Target& t = targets_[k.entry];
        if (!reached(t, r_.targets[k.entry].text))
          return false;
        if (!is_match(t, i))
          continue;
        int ignored_by = -1;
        for (std::size_t g = 0; g < ignores_.size() && ignored_by < 0; ++g) {
          if (!reached(ignores_[g], m_.ignore[g]))
            return false;
          if (is_match(ignores_[g], i))
            ignored_by = static_cast<int>(g);
        }
        if (ignored_by >= 0) {
          r_.ignored.push_back({static_cast<int>(i), ignored_by, static_cast<int>(k.entry)});
          break;
        }
        // match_targets: every target's name is tried (sorted), then the class matches.
        const Key* decider = nullptr;
        for (const Key& s : sorted_) {
          if (!reached(targets_[s.entry], r_.targets[s.entry].text))
            return false;
          if (!decider && targets_[s.entry].name_matches(i))
            decider = &s;
        }
        for (const Key& s : sorted_)
          if (!decider && targets_[s.entry].class_matches(i))
            decider = &s;
        place(static_cast<int>(i), *decider);
        break;
      }
    }
    return true;
  }

  void place(int module, const Key& decider) {
    const ModuleObject& m = modules_[static_cast<std::size_t>(module)];
    Applied a{module, decider.group, static_cast<int>(decider.entry), false};
    if (detail::is_attention(model_, module)) {
      // is_narrow_match(model, scheme.targets, name): any of the group's own targets.
      for (std::size_t t = 0; t < targets_.size() && !a.attention; ++t)
        if (r_.targets[t].group == decider.group)
          a.attention = detail::narrow_match(model_, module, [&](int j) {
            return is_match(targets_[t], static_cast<std::size_t>(j));
          });
      if (a.attention) {
        r_.applied.push_back(a);
        return;
      }
    }
    if (m.is_a(kLinear) || m.is_a(kEmbedding))
      r_.applied.push_back(a);
    else
      r_.untouched.push_back(module);
  }

  // validate_group_size_divisibility: a grouped weight whose columns the group does not divide.
  bool check_group_sizes() {
    std::string layers;
    std::optional<config::Range> first;
    for (const Applied& a : r_.applied) {
      const Scheme& s = r_.groups[static_cast<std::size_t>(a.group)].scheme;
      if (!s.weights || (s.weights->strategy != "group" && s.weights->strategy != "tensor_group") ||
          !s.weights->group_size || a.attention)
        continue;
      const ModuleObject& m = modules_[static_cast<std::size_t>(a.module)];
      const index::Parameter* w = model_.find_parameter(m.name + ".weight");
      if (!w || w->shape.empty())
        continue;
      long long columns = w->shape.back(), group = s.weights->group_size;
      if (columns >= group && columns % group != 0) {
        layers += "\n  - " + m.name + " (columns=" + std::to_string(columns) +
                  ", group_size=" + std::to_string(group) + ")";
        if (!first)
          first = r_.targets[static_cast<std::size_t>(a.target)].text.range;
      }
    }
    if (layers.empty())
      return true;
    fail("group-size",
         "The following layers have weight column counts not divisible by group_size (add them "
         "to `ignore`, or set bypass_divisibility_checks=True):" +
             layers,
         first && first->end.line + first->end.byte_col > 0 ? first : std::nullopt);
    return false;
  }

  // SmoothQuant: match_modules_set(model, [*balance, smooth]); AWQ: (smooth, *balance). Each
  // set must hold one smooth layer.
  void resolve_mappings() {
    bool awq = m_.class_name == "AWQModifier";
    for (const Mapping& mapping : m_.mappings) {
      ResolvedMapping rm;
      std::vector<Target> targets;
      std::vector<const Written*> written;
      if (awq && mapping.smooth)
        written.push_back(&*mapping.smooth);
      for (const Written& b : mapping.balance)
        written.push_back(&b);
      if (!awq && mapping.smooth)
        written.push_back(&*mapping.smooth);
      for (const Written* w : written)
        targets.emplace_back(w->text);
      if (!mapping.smooth) {
        rm.error = "a mapping needs a smooth layer";
        fail("mapping", *rm.error, mapping.range);
      }
      for (std::size_t t = 0; t < targets.size() && !rm.error; ++t)
        if (!reached(targets[t], *written[t]))
          rm.error = r_.error;
      if (!rm.error) {
        detail::ModuleSets sets = detail::match_modules_set(model_, targets);
        rm.found = sets.found;
        rm.error = sets.error;
        std::size_t smooth_at = awq ? 0 : targets.size() - 1;
        for (auto& set : sets.sets) {
          // Reordered [smooth, balance...] whatever the library's order.
          std::vector<std::vector<int>> ordered;
          ordered.push_back(set[smooth_at]);
          for (std::size_t t = 0; t < set.size(); ++t)
            if (t != smooth_at)
              ordered.push_back(set[t]);
          if (!rm.error && ordered.front().size() > 1)
            rm.error = std::string(awq ? "AWQ" : "SmoothQuant") +
                       " needs to match a single smooth layer for each mapping but got " +
                       std::to_string(ordered.front().size()) + " (" +
                       modules_[static_cast<std::size_t>(ordered.front()[0])].name + ", " +
                       modules_[static_cast<std::size_t>(ordered.front()[1])].name + ")";
          rm.sets.push_back(std::move(ordered));
        }
        if (rm.error)
          fail("mapping", *rm.error, mapping.range);
      }
      r_.mappings.push_back(std::move(rm));
    }
  }

  const Modifier& m_;
  const index::Index& model_;
  const std::vector<ModuleObject>& modules_;
  const detail::EntryMatches* memo_; // null: nothing kept between checks
  Resolution r_;
  std::vector<Target> targets_, ignores_;
  std::vector<Key> keys_, sorted_;
};

} // namespace

Resolution resolve(const Modifier& modifier, const index::Index& model,
                   const detail::EntryMatches* memo) {
  if (model.named_modules().empty())
    return Resolution{};
  return Resolver(modifier, model, memo).run();
}

ModuleVerdict verdict(const Resolution& resolution, int module) {
  ModuleVerdict v;
  for (const Applied& a : resolution.applied)
    if (a.module == module)
      v.applied = &a;
  for (const Ignored& i : resolution.ignored)
    if (i.module == module)
      v.ignored = &i;
  return v;
}

} // namespace opscope::dialects::llmcompressor
