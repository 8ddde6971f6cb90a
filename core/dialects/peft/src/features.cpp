// Diagnostics, hover and completion of PEFT configs, from resolve()'s bookkeeping.
#include "opscope/dialects/peft/features.h"
#include "opscope/dialects/written.h"

#include "opscope/index/nearest.h"

#include <algorithm>
#include <map>
#include <set>

namespace opscope::dialects::peft {
namespace {

using index::ModuleObject;

// The candidate names a list entry is compared with: every module's leaf name and full name.
std::vector<std::string> candidate_names(const index::Index& model) {
  std::set<std::string> names;
  for (const ModuleObject& m : model.named_modules())
    if (!m.name.empty()) {
      names.insert(last_part(m.name));
      names.insert(m.name);
    }
  return {names.begin(), names.end()};
}

Diagnostic no_match(const Written& w, const std::vector<std::string>& candidates, Severity severity,
                    const std::string& what) {
  Diagnostic f;
  f.range = w.range;
  f.severity = severity;
  f.code = "no-match";
  f.message = what + " " + code_span(w.text) + " matches no module of the model";
  std::vector<std::string> near = index::nearest_names(w.text, candidates);
  if (!near.empty())
    f.message += "; did you mean " + code_span(near.front()) + "?";
  for (const std::string& n : near)
    f.fixes.push_back({"Replace with " + code_span(n), {between_quotes(w), n}, true});
  return f;
}

} // namespace

std::vector<Diagnostic> diagnose(const PeftConfig& config, const Resolution& resolution,
                                 const index::Index& model) {
  std::vector<Diagnostic> out;
  const auto& modules = model.named_modules();
  if (modules.empty())
    return out;
  std::vector<std::string> candidates = candidate_names(model);
  bool nothing_wrapped = resolution.wrapped.empty() && resolution.wrapped_parameters.empty();
  if (resolution.error) {
    Diagnostic f;
    f.range = resolution.error_range ? *resolution.error_range : config.anchor;
    f.severity = Severity::Error;
    f.code = resolution.error_code;
    f.message = *resolution.error + " (get_peft_model raises)";
    out.push_back(std::move(f));
  }
  // Each list entry that matches nothing: an error with the rest when nothing matches (PEFT
  // raises), a warning when other entries match (PEFT is silent).
  for (std::size_t i = 0; i < config.target_names.size(); ++i)
    if (resolution.target_matches.size() > i && resolution.target_matches[i].empty())
      out.push_back(no_match(config.target_names[i], candidates,
                             nothing_wrapped ? Severity::Error : Severity::Warning,
                             "target_modules entry"));
  for (std::size_t i = 0; i < config.exclude_names.size(); ++i)
    if (resolution.exclude_matches.size() > i && resolution.exclude_matches[i].empty())
      out.push_back(no_match(config.exclude_names[i], candidates, Severity::Warning,
                             "exclude_modules entry"));
  for (std::size_t i = 0; i < config.modules_to_save.size(); ++i) {
    const Written& w = config.modules_to_save[i];
    const std::vector<int>& hits = resolution.saved_matches[i];
    if (hits.empty()) {
      out.push_back(no_match(w, candidates, Severity::Warning, "modules_to_save entry"));
      continue;
    }
    // A plain suffix: `proj` also saves `q_proj`. Said when some match has no dot boundary.
    std::vector<std::string> loose;
    for (int m : hits) {
      const std::string& name = modules[static_cast<std::size_t>(m)].name;
      if (name != w.text && !name.ends_with("." + w.text))
        loose.push_back(name);
    }
    if (!loose.empty()) {
      Diagnostic f;
      f.range = w.range;
      f.code = "save-suffix";
      f.message = "modules_to_save matches by plain suffix: " + code_span(w.text) + " also saves " +
                  code_span(loose.front()) +
                  (loose.size() > 1 ? " and " + std::to_string(loose.size() - 1) + " more" : "") +
                  " (a full copy of each is trained)";
      out.push_back(std::move(f));
    }
  }
  // layers_to_transform: an index no layer has.
  if (!config.layers_to_transform.empty()) {
    std::vector<std::string> patterns;
    for (const Written& p : config.layers_pattern)
      patterns.push_back(p.text);
    long long highest = -1;
    for (const ModuleObject& m : modules) {
      std::string probe = m.name + ".";
      // The layer index PEFT reads from a name (the first numbered segment after the pattern).
      std::size_t at = 0;
      while ((at = probe.find('.', at)) != std::string::npos) {
        std::size_t end = probe.find('.', at + 1);
        if (end == std::string::npos)
          break;
        std::string segment = probe.substr(at + 1, end - at - 1);
        if (!segment.empty() && segment.size() < 10 &&
            std::all_of(segment.begin(), segment.end(), ::isdigit))
          highest = std::max(highest, std::stoll(segment));
        at = end;
      }
    }
    for (const auto& [layer, range] : config.layers_to_transform)
      if (layer < 0 || layer > highest) {
        Diagnostic f;
        f.range = range;
        f.code = "layer-out-of-range";
        f.message = "layers_to_transform " + std::to_string(layer) +
                    ": the model's layers are numbered 0 to " + std::to_string(highest);
        out.push_back(std::move(f));
      }
  }
  // rank_pattern / alpha_pattern keys that match no wrapped module (PEFT warns and ignores them).
  auto patterns = [&](const auto& pattern, const std::vector<std::vector<int>>& matches,
                      const char* field) {
    for (std::size_t i = 0; i < pattern.size(); ++i)
      if (i < matches.size() && matches[i].empty() && !nothing_wrapped) {
        Diagnostic f;
        f.range = pattern[i].first.range;
        f.code = "pattern-no-match";
        f.message = std::string(field) + " key " + code_span(pattern[i].first.text) +
                    " matches no module the adapter wraps; it is ignored";
        out.push_back(std::move(f));
      }
  };
  patterns(config.rank_pattern, resolution.rank_matches, "rank_pattern");
  patterns(config.alpha_pattern, resolution.alpha_matches, "alpha_pattern");
  for (const config::Range& r : config.unreadable) {
    Diagnostic f;
    f.range = r;
    f.severity = Severity::Information;
    f.code = "unreadable";
    f.message = "opscope cannot read this value (a variable or an expression); it is not checked";
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<Hover> hover(const PeftConfig& config, const Resolution& resolution,
                           const index::Index& model, config::Position cursor) {
  auto hit = [&](const Written& w) { return w.range.contains(cursor); };
  for (std::size_t i = 0; i < config.target_names.size(); ++i)
    if (hit(config.target_names[i]) && i < resolution.target_matches.size()) {
      const auto& m = resolution.target_matches[i];
      return Hover{"**" + code_span(config.target_names[i].text) + "** matches " +
                       std::to_string(m.size()) + " module" + (m.size() == 1 ? "" : "s") + "\n\n" +
                       module_list(model, m),
                   config.target_names[i].range};
    }
  if (config.all_linear && hit(*config.all_linear))
    return Hover{"**all-linear** expands to " + std::to_string(resolution.all_linear_set.size()) +
                     " linear layers (the output layer left out)\n\n" +
                     module_list(model, resolution.all_linear_set, 24),
                 config.all_linear->range};
  if (config.target_regex && hit(*config.target_regex))
    return Hover{"**re.fullmatch** on full module names: " +
                     std::to_string(resolution.regex_matches.size()) + " modules\n\n" +
                     module_list(model, resolution.regex_matches),
                 config.target_regex->range};
  auto keyed = [&](const auto& pattern, const std::vector<std::vector<int>>& matches,
                   const char* field) -> std::optional<Hover> {
    for (std::size_t i = 0; i < pattern.size(); ++i)
      if (hit(pattern[i].first) && i < matches.size())
        return Hover{std::string("**") + field + "** key sets " +
                         std::to_string(matches[i].size()) + " wrapped modules\n\n" +
                         module_list(model, matches[i]),
                     pattern[i].first.range};
    return std::nullopt;
  };
  if (auto h = keyed(config.rank_pattern, resolution.rank_matches, "rank_pattern"))
    return h;
  if (auto h = keyed(config.alpha_pattern, resolution.alpha_matches, "alpha_pattern"))
    return h;
  for (std::size_t i = 0; i < config.modules_to_save.size(); ++i)
    if (hit(config.modules_to_save[i]))
      return Hover{"**modules_to_save** (plain suffix): " +
                       std::to_string(resolution.saved_matches[i].size()) +
                       " modules copied and trained in full\n\n" +
                       module_list(model, resolution.saved_matches[i]),
                   config.modules_to_save[i].range};
  for (std::size_t i = 0; i < config.exclude_names.size(); ++i)
    if (hit(config.exclude_names[i]) && i < resolution.exclude_matches.size())
      return Hover{"**exclude_modules** entry excludes " +
                       std::to_string(resolution.exclude_matches[i].size()) + " modules\n\n" +
                       module_list(model, resolution.exclude_matches[i]),
                   config.exclude_names[i].range};
  return std::nullopt;
}

std::vector<CompletionItem> completion_candidates(const index::Index& model) {
  struct Leaf {
    int count = 0;
    std::set<std::string> types;
  };
  std::map<std::string, Leaf> leaves;
  for (const ModuleObject& m : model.named_modules()) {
    if (m.name.empty())
      continue;
    Leaf& l = leaves[last_part(m.name)];
    ++l.count;
    if (!m.type.empty())
      l.types.insert(last_part(m.type));
  }
  std::vector<CompletionItem> out;
  for (const auto& [name, l] : leaves) {
    std::string detail = "×" + std::to_string(l.count);
    for (const std::string& t : l.types)
      detail += " " + t;
    out.push_back(module_name_item(name, detail, "0" + name, {}));
  }
  for (const ModuleObject& m : model.named_modules())
    if (!m.name.empty() && m.name.find('.') != std::string::npos)
      out.push_back(module_name_item(m.name, last_part(m.type), "1" + m.name, {}));
  return out;
}

std::vector<CompletionItem> complete(const PeftConfig& config,
                                     const std::vector<CompletionItem>& candidates,
                                     config::Position cursor, std::size_t limit) {
  const Written* typed = nullptr;
  for (const auto* list : {&config.target_names, &config.exclude_names, &config.modules_to_save})
    for (const Written& w : *list)
      if (w.range.contains(cursor))
        typed = &w;
  if (!typed)
    return {};
  const config::Range replace = between_quotes(*typed);
  // What is typed before the cursor (a module name holds no escapes: its text as written).
  std::string before;
  if (replace.start.line == cursor.line && cursor.byte_col > replace.start.byte_col)
    before = typed->text.substr(
        0, std::min(typed->text.size(),
                    static_cast<std::size_t>(cursor.byte_col - replace.start.byte_col)));
  // Only what the editor is sent: a 70B-shaped model's thousand full names past it would be
  // copied to be dropped.
  std::vector<CompletionItem> out;
  for (const CompletionItem& item : candidates) {
    if (out.size() >= limit)
      break;
    if (holds_in_order(item.label, before)) {
      out.push_back(item);
      out.back().edit.range = replace;
    }
  }
  return out;
}

std::vector<CompletionItem> complete(const PeftConfig& config, const index::Index& model,
                                     config::Position cursor, std::size_t limit) {
  return complete(config, completion_candidates(model), cursor, limit);
}

} // namespace opscope::dialects::peft
