// Diagnostics, hover and completion of llm-compressor modifiers, from resolve()'s bookkeeping.
#include "opscope/dialects/llmcompressor/features.h"
#include "opscope/dialects/llmcompressor/size.h"
#include "opscope/dialects/written.h"

#include "matching.h"
#include "opscope/index/nearest.h"

#include <algorithm>
#include <map>
#include <set>

namespace opscope::dialects::llmcompressor {
namespace {

using index::ModuleObject;

constexpr std::string_view kEmbedding = "torch.nn.modules.sparse.Embedding";

bool written(const config::Range& r) {
  return r.end.line > r.start.line || r.end.byte_col > r.start.byte_col;
}

std::string plural(std::size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// What an entry that matched nothing may have meant, best first: the full names a bare leaf
// name stands for (Gemma 3's `lm_head` is `language_model.lm_head`), else the nearest names
// and class names.
std::vector<std::string> did_you_mean(const std::string& text, const index::Index& model) {
  std::vector<std::string> out;
  const auto& modules = model.named_modules();
  std::string wanted = text.starts_with("re:") ? text.substr(3) : text;
  std::vector<std::string> suffixed;
  for (const ModuleObject& m : modules)
    if (m.name.ends_with("." + wanted))
      suffixed.push_back(m.name);
  if (!suffixed.empty() && suffixed.size() <= 3)
    return suffixed;
  if (!suffixed.empty())
    return {"re:.*\\." + wanted + "$"};
  // A name from another layout of the same model (`language_model.lm_head` where the head
  // is now `lm_head`): the modules that end with its last part.
  if (auto dot = wanted.rfind('.'); dot != std::string::npos && !text.starts_with("re:")) {
    std::string last = wanted.substr(dot + 1);
    for (const ModuleObject& m : modules)
      if (m.name == last || m.name.ends_with("." + last))
        suffixed.push_back(m.name);
    if (!suffixed.empty() && suffixed.size() <= 3)
      return suffixed;
  }
  // A misspelt last part of a module that exists (`model.layers.3.mlp.up_projx`): its
  // siblings, before comparing with every name of a model that has thousands.
  if (auto dot = wanted.rfind('.'); dot != std::string::npos && !text.starts_with("re:"))
    if (int parent = model.find_module_object(wanted.substr(0, dot)); parent >= 0) {
      std::vector<std::string> siblings;
      for (int child : modules[static_cast<std::size_t>(parent)].children)
        if (child >= 0 && static_cast<std::size_t>(child) < modules.size())
          siblings.push_back(modules[static_cast<std::size_t>(child)].name);
      if (std::vector<std::string> near = index::nearest_names(wanted, siblings); !near.empty())
        return near;
    }
  std::set<std::string> names;
  for (const ModuleObject& m : modules) {
    if (m.name.empty())
      continue;
    names.insert(m.name);
    for (const std::string& c : detail::class_names(m))
      names.insert(c);
  }
  return index::nearest_names(wanted, {names.begin(), names.end()});
}

Diagnostic no_match(const Written& w, const index::Index& model, const std::string& what,
                    const std::string& consequence) {
  Diagnostic f;
  f.range = w.range;
  f.severity = Severity::Warning;
  f.code = "no-match";
  f.message = what + " " + code_span(w.text) + " matches no module of the model" + consequence;
  std::vector<std::string> near = did_you_mean(w.text, model);
  if (!near.empty())
    f.message += "; did you mean " + code_span(near.front()) + "?";
  for (const std::string& n : near)
    f.fixes.push_back({"Replace with " + code_span(n), {between_quotes(w), n}, true});
  return f;
}

// Where the written string of a target entry is (the default `Linear` has none: the anchor).
config::Range where(const Modifier& m, const Written& w) {
  return written(w.range) ? w.range : m.anchor;
}

} // namespace

std::vector<Diagnostic> diagnose(const Modifier& modifier, const Resolution& r,
                                 const index::Index& model) {
  std::vector<Diagnostic> out;
  const auto& modules = model.named_modules();
  if (modules.empty())
    return out;
  if (r.error) {
    Diagnostic f;
    f.range = r.error_range ? *r.error_range : modifier.anchor;
    f.severity = Severity::Error;
    f.code = r.error_code;
    f.message = *r.error + " (" + modifier.class_name + " raises)";
    out.push_back(std::move(f));
  }
  // Patterns that do not compile but were not reached (a bad one reached is the error above).
  auto bad = [&](const Written& w) {
    detail::Target t(w.text);
    if (!t.bad() || (r.error_code == "regex" && r.error_range &&
                     r.error_range->start.line == w.range.start.line &&
                     r.error_range->start.byte_col == w.range.start.byte_col))
      return;
    Diagnostic f;
    f.range = w.range;
    f.code = "regex";
    f.message = t.problem() + "; Python raises re.error once a module reaches it";
    out.push_back(std::move(f));
  };
  for (const TargetEntry& t : r.targets)
    if (written(t.text.range))
      bad(t.text);
  for (const Written& w : modifier.ignore)
    bad(w);
  // Entries that match nothing: llm-compressor warns about a target after loading the model,
  // and says nothing about an ignore entry.
  for (std::size_t i = 0; i < r.targets.size(); ++i)
    if (i < r.target_matches.size() && r.target_matches[i].empty() &&
        written(r.targets[i].text.range) && !detail::Target(r.targets[i].text.text).bad())
      out.push_back(no_match(r.targets[i].text, model, "target",
                             " (llm-compressor only warns, after loading the model)"));
  for (std::size_t i = 0; i < modifier.ignore.size(); ++i)
    if (i < r.ignore_matches.size() && r.ignore_matches[i].empty() &&
        !detail::Target(modifier.ignore[i].text).bad())
      out.push_back(no_match(modifier.ignore[i], model, "ignore entry",
                             ": it leaves nothing out, and nothing says so"));
  // A target that matches only modules compressed-tensors leaves as they are (a decoder layer,
  // an MLP): matching does not reach inside a module, so nothing under it is quantized.
  for (std::size_t i = 0; i < r.targets.size() && i < r.target_matches.size(); ++i) {
    const std::vector<int>& matched = r.target_matches[i];
    if (matched.empty() || !written(r.targets[i].text.range))
      continue;
    bool quantized = false, untouched = false;
    for (int m : matched) {
      quantized = quantized || verdict(r, m).applied || verdict(r, m).ignored;
      untouched =
          untouched || std::find(r.untouched.begin(), r.untouched.end(), m) != r.untouched.end();
    }
    if (quantized || !untouched)
      continue;
    Diagnostic f;
    f.range = r.targets[i].text.range;
    f.code = "not-quantizable";
    f.message = code_span(r.targets[i].text.text) + " matches " + plural(matched.size(), "module") +
                " (" + last_part(modules[static_cast<std::size_t>(matched.front())].type) +
                "), none a Linear, Embedding or attention module: nothing is quantized, and a "
                "target does not reach the layers inside (target `Linear`, or a `re:` pattern "
                "of their names)";
    out.push_back(std::move(f));
  }
  // An exact name that is both targeted and ignored: ignore wins.
  for (const Ignored& ig : r.ignored) {
    const std::string& name = modules[static_cast<std::size_t>(ig.module)].name;
    for (const TargetEntry& e : r.targets)
      if (e.text.text == name && written(e.text.range)) {
        Diagnostic f;
        f.range = e.text.range;
        f.severity = Severity::Information;
        f.code = "targeted-and-ignored";
        f.message = code_span(name) + " is targeted and ignored (by " +
                    code_span(modifier.ignore[static_cast<std::size_t>(ig.ignore_entry)].text) +
                    "): ignore wins, it is not quantized";
        out.push_back(std::move(f));
        break;
      }
  }
  // The output head or an embedding quantized by a target that does not name it.
  std::vector<std::string> heads;
  std::optional<config::Range> head_range;
  for (const Applied& a : r.applied) {
    const ModuleObject& m = modules[static_cast<std::size_t>(a.module)];
    if (!m.output_embeddings && !m.is_a(kEmbedding))
      continue;
    const TargetEntry& t = r.targets[static_cast<std::size_t>(a.target)];
    if (t.text.text == m.name)
      continue;
    heads.push_back(m.name);
    if (!head_range)
      head_range = where(modifier, t.text);
  }
  if (!heads.empty()) {
    Diagnostic f;
    f.range = *head_range;
    f.severity = Severity::Information;
    f.code = "head-quantized";
    f.message = "these targets also quantize ";
    for (std::size_t i = 0; i < heads.size() && i < 4; ++i)
      f.message += (i ? ", " : "") + code_span(heads[i]);
    if (heads.size() > 4)
      f.message += " and " + std::to_string(heads.size() - 4) + " more";
    f.message += " (the output head / embeddings); add them to `ignore` if that is not meant";
    out.push_back(std::move(f));
  }
  for (std::size_t i = 0; i < modifier.mappings.size() && i < r.mappings.size(); ++i)
    if (!r.mappings[i].found && !r.mappings[i].error) {
      Diagnostic f;
      f.range = modifier.mappings[i].range;
      f.code = "mapping-no-match";
      f.message = "this mapping matches no module: it is skipped";
      out.push_back(std::move(f));
    }
  for (const config::Range& u : modifier.unreadable) {
    Diagnostic f;
    f.range = u;
    f.severity = Severity::Information;
    f.code = "unreadable";
    f.message = "opscope cannot read this value (a variable or an expression); it is not checked";
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<Hover> hover(const Modifier& modifier, const Resolution& r, const index::Index& model,
                           config::Position cursor) {
  auto hit = [&](const Written& w) { return written(w.range) && w.range.contains(cursor); };
  auto applied_of = [&](const std::vector<int>& matched) {
    std::size_t n = 0;
    for (const Applied& a : r.applied)
      n += std::count(matched.begin(), matched.end(), a.module);
    return n;
  };
  for (std::size_t i = 0; i < r.targets.size() && i < r.target_matches.size(); ++i)
    if (hit(r.targets[i].text)) {
      const auto& m = r.target_matches[i];
      std::string md =
          "**" + code_span(r.targets[i].text.text) + "** matches " + plural(m.size(), "module");
      if (quantizes(modifier.class_name) && r.targets[i].group >= 0 &&
          static_cast<std::size_t>(r.targets[i].group) < r.groups.size()) {
        const Group& g = r.groups[static_cast<std::size_t>(r.targets[i].group)];
        md += "; " + std::to_string(applied_of(m)) + " get a scheme (" + g.name +
              (g.preset ? ", " + *g.preset : std::string()) + ": " + describe(g.scheme) + ")";
      }
      return Hover{md + "\n\n" + module_list(model, m), r.targets[i].text.range};
    }
  for (std::size_t i = 0; i < modifier.ignore.size() && i < r.ignore_matches.size(); ++i)
    if (hit(modifier.ignore[i])) {
      std::vector<int> left_out;
      for (const Ignored& ig : r.ignored)
        if (ig.ignore_entry == static_cast<int>(i))
          left_out.push_back(ig.module);
      const auto& m = r.ignore_matches[i];
      return Hover{"**ignore " + code_span(modifier.ignore[i].text) + "** matches " +
                       plural(m.size(), "module") + "; leaves out " +
                       plural(left_out.size(), "targeted module") + "\n\n" + module_list(model, m),
                   modifier.ignore[i].range};
    }
  auto preset_hover = [&](const Written& w) -> std::optional<Hover> {
    if (!hit(w))
      return std::nullopt;
    std::optional<Scheme> s = preset_scheme(w.text);
    return Hover{s ? "**" + w.text + "**: " + describe(*s)
                   : "**" + w.text + "** is not a preset scheme",
                 w.range};
  };
  if (modifier.scheme)
    if (auto h = preset_hover(*modifier.scheme))
      return h;
  for (const auto& [name, _] : modifier.scheme_targets)
    if (auto h = preset_hover(name))
      return h;
  for (std::size_t i = 0; i < modifier.mappings.size() && i < r.mappings.size(); ++i) {
    const Mapping& mp = modifier.mappings[i];
    std::vector<const Written*> entries;
    if (mp.smooth)
      entries.push_back(&*mp.smooth);
    for (const Written& b : mp.balance)
      entries.push_back(&b);
    for (const Written* w : entries)
      if (hit(*w)) {
        const ResolvedMapping& rm = r.mappings[i];
        std::string md = "**mapping** pairs " + plural(rm.sets.size(), "block");
        if (rm.error)
          md += "; " + *rm.error;
        md += "\n\n";
        for (std::size_t s = 0; s < rm.sets.size() && s < 6; ++s) {
          md += "- ";
          for (std::size_t t = 0; t < rm.sets[s].size(); ++t) {
            md += t == 0 ? "smooth " : (t == 1 ? " → balance " : ", ");
            for (std::size_t k = 0; k < rm.sets[s][t].size(); ++k)
              md += (k ? ", `" : "`") +
                    model.named_modules()[static_cast<std::size_t>(rm.sets[s][t][k])].name + "`";
          }
          md += "\n";
        }
        return Hover{md, w->range};
      }
  }
  // A modifier llm-compressor never reads: say so rather than what it would do.
  if (modifier.anchor.contains(cursor) && !modifier.applied)
    return Hover{"**" + modifier.class_name +
                     "** is never applied: llm-compressor 0.14 reads modifiers only under "
                     "`<name>_stage: <name>_modifiers:` (here it would quantize " +
                     plural(r.applied.size(), "module") + ")",
                 modifier.anchor};
  // The modifier's own name: what it quantizes and the checkpoint it alone would save.
  if (modifier.anchor.contains(cursor) && quantizes(modifier.class_name))
    return Hover{"**" + modifier.class_name + "** quantizes " + plural(r.applied.size(), "module") +
                     ", " + std::to_string(r.ignored.size()) + " ignored; " +
                     size_line(project_checkpoint({modifier}, {r}, model)),
                 modifier.anchor};
  return std::nullopt;
}

const Written* entry_at(const Modifier& modifier, config::Position cursor) {
  const Written* typed = nullptr;
  auto consider = [&](const Written& w) {
    if (w.range.contains(cursor))
      typed = &w;
  };
  for (const Written& w : modifier.targets)
    consider(w);
  for (const Written& w : modifier.ignore)
    consider(w);
  for (const ConfigGroup& g : modifier.config_groups)
    for (const Written& w : g.targets)
      consider(w);
  for (const auto& [_, targets] : modifier.scheme_targets)
    for (const Written& w : targets)
      consider(w);
  for (const Mapping& m : modifier.mappings) {
    for (const Written& w : m.balance)
      consider(w);
    if (m.smooth)
      consider(*m.smooth);
  }
  return typed;
}

std::vector<CompletionItem> candidates(const index::Index& model) {
  std::map<std::string, std::pair<int, std::set<std::string>>> leaves; // leaf -> count, types
  std::map<std::string, int> classes;
  std::vector<CompletionItem> out;
  for (const ModuleObject& m : model.named_modules()) {
    for (const std::string& c : detail::class_names(m))
      ++classes[c];
    if (m.name.empty())
      continue;
    auto& l = leaves[last_part(m.name)];
    ++l.first;
    if (!m.type.empty())
      l.second.insert(last_part(m.type));
  }
  // Class names first (what recipes mostly target), then `re:` leaf patterns, then full names.
  for (const auto& [c, n] : classes)
    out.push_back(module_name_item(c, "class ×" + std::to_string(n), "0" + c, {}));
  for (const auto& [name, l] : leaves) {
    std::string detail = "×" + std::to_string(l.first);
    for (const std::string& t : l.second)
      detail += " " + t;
    std::string pattern = "re:.*" + name + "$";
    out.push_back(module_name_item(pattern, detail, "1" + name, {}));
  }
  for (const ModuleObject& m : model.named_modules())
    if (!m.name.empty())
      out.push_back(module_name_item(m.name, last_part(m.type), "2" + m.name, {}));
  return out;
}

std::vector<CompletionItem> complete(const Modifier& modifier, const index::Index& model,
                                     config::Position cursor) {
  const Written* typed = entry_at(modifier, cursor);
  if (!typed)
    return {};
  std::vector<CompletionItem> out = candidates(model);
  config::Range replace = between_quotes(*typed);
  for (CompletionItem& item : out)
    item.edit.range = replace;
  return out;
}

std::string explain_module(const Modifier& modifier, const Resolution& r,
                           const index::Index& /*model*/, int module) {
  ModuleVerdict v = verdict(r, module);
  if (v.ignored)
    return "ignored by " +
           code_span(modifier.ignore[static_cast<std::size_t>(v.ignored->ignore_entry)].text) +
           " (targeted by " +
           code_span(r.targets[static_cast<std::size_t>(v.ignored->target)].text.text) + ")";
  if (!v.applied) {
    if (std::find(r.untouched.begin(), r.untouched.end(), module) != r.untouched.end())
      return "targeted, but not a Linear, Embedding or attention module: left as it is";
    return "not targeted";
  }
  const Group& g = r.groups[static_cast<std::size_t>(v.applied->group)];
  return describe(g.scheme) + " (" + g.name + (g.preset ? ", " + *g.preset : std::string()) +
         ", by " + code_span(r.targets[static_cast<std::size_t>(v.applied->target)].text.text) +
         (v.applied->attention ? ", attention" : "") + ")";
}

} // namespace opscope::dialects::llmcompressor
