#include "opscope/features/hover.h"

#include "matching.h"
#include "opscope/features/projected_size.h"
#include "opscope/features/weight_error.h"
#include "opscope/index/module_inputs.h"
#include "resolution.h"
#include "text.h"

#include <algorithm>
#include <optional>
#include <set>

namespace opscope::features {
namespace {

// "model.py:36" linking to the line: the full path would crowd the table, and a
// click on the link opens the file there (VS Code and Neovim follow file URIs with #L).
std::string source_link(const SourceLocation& loc) {
  const std::string& file = loc.file;
  std::string line = std::to_string(loc.line);
  if (file.empty() || file[0] != '/')
    return file + ":" + line;
  std::string base = file.substr(file.find_last_of('/') + 1);
  return "[" + base + ":" + line + "](file://" + file + "#L" + line + ")";
}

using config::Table;

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string scope_text(const config::Scope& scope) {
  switch (scope.kind) {
  case config::Scope::Kind::Global:
    return "global_config";
  case config::Scope::Kind::ModuleType:
    return "modules of type `" + scope.key + "`";
  case config::Scope::Kind::ModuleName:
    return "modules matching `" + scope.key + "`";
  }
  return "";
}

const char* precedence_note(Table table) {
  if (table == Table::ModuleName || table == Table::ModuleType)
    return "Precedence: `module_name_configs` > `module_type_configs` > `global_config`; "
           "the config applies to the matched modules and the modules inside them.";
  return "Precedence: `op_name_config` > `op_type_config` > the module's own specs; the "
         "enclosing module config follows `module_name_configs` > `module_type_configs` > "
         "`global_config`.";
}

// The modules (or model inputs) that produce the module's inputs: core/index's
// `opscope inputs` answer.
std::vector<std::string> feeding_modules(const index::Index& index, const index::Module& module) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto inputs = index::module_inputs(index, module.name);
  if (!inputs)
    return out;
  for (const index::ModuleInput& input : *inputs) {
    for (const index::InputOrigin& origin : input.origins) {
      std::string name;
      switch (origin.kind) {
      case index::InputOrigin::Kind::Module:
        name = origin.module.name.empty() ? "`" + origin.op + "` (top level)"
                                          : "`" + origin.module.name + "`";
        break;
      case index::InputOrigin::Kind::ModelInput:
        name = "model input `" + origin.op + "`";
        break;
      case index::InputOrigin::Kind::Untracked:
        name = "an untracked tensor";
        break;
      }
      if (seen.insert(name).second)
        out.push_back(name);
    }
  }
  return out;
}

std::string module_details(const index::Index& index, const index::Module& module) {
  std::string out = "**`" + module.name + "`**: `" + module.type + "`\n\n";
  if (!module.children.empty()) {
    out += "children: ";
    for (std::size_t i = 0; i < module.children.size(); ++i) {
      const index::Module& child = index.modules[static_cast<std::size_t>(module.children[i])];
      out += (i ? ", " : "") + ("`" + child.name + "`");
      if (i == 9 && module.children.size() > 10) {
        out += ", and " + std::to_string(module.children.size() - 10) + " more";
        break;
      }
    }
    out += "\n\n";
  }
  std::vector<std::string> feeds = feeding_modules(index, module);
  if (!feeds.empty()) {
    out += "fed by: ";
    for (std::size_t i = 0; i < feeds.size(); ++i)
      out += (i ? ", " : "") + feeds[i];
    out += "\n\n";
  }
  return out;
}

// What coreai-opt's resolution gives this key: of the annotated ops it matches (in the
// modules it matches, or by its op name / type), how many it decides and who takes the rest.
std::string resolution_text(const config::ConfigDocument& document, const index::Index& index,
                            const resolve::Resolution& resolution, const config::PatternKey& key) {
  const int k = static_cast<int>(&key - document.keys.data());
  std::vector<bool> covered;
  if (key.table == Table::ModuleName || key.table == Table::ModuleType) {
    auto entry = std::find_if(resolution.entries.begin(), resolution.entries.end(),
                              [&](const resolve::EntryMatch& e) { return e.key == k; });
    if (entry == resolution.entries.end())
      return "coreai-opt reads a later entry written with the same key instead of this one.\n\n";
    covered.assign(index.modules.size(), false);
    for (int m : entry->modules)
      covered[static_cast<std::size_t>(m)] = true;
    for (std::size_t m = 1; m < index.modules.size(); ++m)
      if (index.modules[m].parent >= 0 &&
          covered[static_cast<std::size_t>(index.modules[m].parent)])
        covered[m] = true;
  }
  std::optional<index::Query> op_name;
  if (key.table == Table::OpName)
    op_name.emplace(index::Table::OpName, key.text, false);
  std::size_t matched = 0, governed = 0, beyond = 0;
  std::vector<std::pair<resolve::Decider, std::size_t>> others;
  for (const resolve::OpDecision& d : resolution.ops) {
    const index::Op& op = index.ops[static_cast<std::size_t>(d.op)];
    bool mine = d.decider.kind == resolve::Decider::Kind::Key && d.decider.key == k;
    bool in_reach = false;
    if (!covered.empty()) {
      in_reach = covered[static_cast<std::size_t>(d.module)];
      mine = d.module_entry.kind == resolve::Decider::Kind::Key && d.module_entry.key == k;
    } else if (key.table == Table::OpName) {
      in_reach = mine || op_name->matches(op.name);
    } else {
      in_reach = mine || index.type_for(op, resolution.compressor) == key.text;
    }
    if (!in_reach) {
      beyond += mine ? 1 : 0; // a pattern member outside its modules (the bn after its conv)
      continue;
    }
    ++matched;
    if (mine) {
      ++governed;
      continue;
    }
    const resolve::Decider& who = covered.empty() ? d.decider : d.module_entry;
    auto it = std::find_if(others.begin(), others.end(), [&](auto& o) { return o.first == who; });
    if (it == others.end())
      others.push_back({who, 1});
    else
      ++it->second;
  }
  const detail::ResolutionWords words = detail::resolution_words(index, resolution.compressor);
  std::string out = "**coreai-opt's resolution** (" + words.mode + "): decides " +
                    std::to_string(governed) + " of the " + plural(matched, "op") + " " +
                    words.configures + " here";
  if (beyond > 0)
    out += ", and " + std::to_string(beyond) +
           " more outside them that follow its ops in a pattern (conv -> bn -> relu, ...)";
  if (others.empty())
    return out + ".\n\n";
  out += "; the others go to:\n\n";
  for (std::size_t i = 0; i < others.size() && i < 8; ++i) {
    const auto& [who, count] = others[i];
    out += "- " + detail::entry_name(document, who) + ": " + plural(count, "op") + "\n";
  }
  if (others.size() > 8)
    out += "- and " + std::to_string(others.size() - 8) + " more entries\n";
  return out + "\n";
}

// Tied tensors this key's ops read whose spec another entry decides (prepare() gives a
// shared tensor the spec of its first annotated reader): "`lm_head.weight` is also ...".
std::string tied_text(const config::ConfigDocument& document, const index::Index& index,
                      const resolve::Resolution& resolution, const config::PatternKey& key) {
  const int k = static_cast<int>(&key - document.keys.data());
  const bool module_key = key.table == Table::ModuleName || key.table == Table::ModuleType;
  auto is_mine = [&](const resolve::OpDecision& d) {
    const resolve::Decider& who = module_key ? d.module_entry : d.decider;
    return who.kind == resolve::Decider::Kind::Key && who.key == k;
  };
  std::string out;
  for (const resolve::SharedTensor& shared : resolution.shared) {
    const resolve::OpDecision& first = resolution.ops[static_cast<std::size_t>(shared.decided_by)];
    if (is_mine(first))
      continue;
    auto mine = std::find_if(shared.readers.begin(), shared.readers.end(), [&](int row) {
      return is_mine(resolution.ops[static_cast<std::size_t>(row)]);
    });
    if (mine == shared.readers.end())
      continue;
    const index::Parameter& p = index.parameters[static_cast<std::size_t>(shared.parameter)];
    const resolve::OpDecision& reader = resolution.ops[static_cast<std::size_t>(*mine)];
    std::string names = "`" + p.name + "`";
    for (const std::string& alias : p.aliases)
      names += " = `" + alias + "`";
    const std::string who = detail::entry_name(document, first.decider);
    out += "**Tied weight:** " + names + " is one tensor. `" +
           index.ops[static_cast<std::size_t>(reader.op)].name +
           "` reads it here, but its spec comes from " + who + " through `" +
           index.ops[static_cast<std::size_t>(first.op)].name +
           "`, which prepare() annotates first; this entry's weight spec does not apply to it.\n\n";
  }
  return out;
}

// Eager mode (the eager Quantizer, the palettizer, the pruner): tied tensors this key's calls
// read. The handler gives a tensor one spec, its highest-priority reader's (a module_state_spec
// before that), and registers that one compressor under every name of the tensor.
std::string eager_tied_text(const config::ConfigDocument& document, const index::Index& index,
                            const resolve::EagerWeights& weights, const config::PatternKey& key) {
  const int k = static_cast<int>(&key - document.keys.data());
  const bool module_key = key.table == Table::ModuleName || key.table == Table::ModuleType;
  auto is_key = [&](const resolve::Decider& d) {
    return d.kind == resolve::Decider::Kind::Key && d.key == k;
  };
  auto is_mine = [&](const resolve::WeightDecision::Reader& r) {
    return is_key(module_key ? r.module_entry : r.decider);
  };
  std::string out;
  for (const resolve::WeightDecision& w : weights.parameters) {
    if (!w.shared())
      continue;
    auto mine = std::find_if(w.readers.begin(), w.readers.end(), is_mine);
    if (mine == w.readers.end())
      continue;
    auto winner = std::find_if(w.readers.begin(), w.readers.end(),
                               [&](const auto& r) { return r.op == w.op; });
    const bool won = w.op >= 0 ? winner != w.readers.end() && is_mine(*winner) : is_key(w.decider);
    const index::Parameter& p = index.parameters[static_cast<std::size_t>(w.parameter)];
    std::string names = "`" + p.name + "`";
    for (const std::string& alias : p.aliases)
      names += " = `" + alias + "`";
    out += "**Tied weight:** " + names + " is one tensor, read by ";
    for (std::size_t i = 0; i < w.readers.size(); ++i)
      out += (i ? ", " : "") + ("`" + index.ops[static_cast<std::size_t>(w.readers[i].op)].name +
                                "` (" + detail::entry_name(document, w.readers[i].decider) + ")");
    out += ". coreai-opt gives it one spec, registered once for all its names: ";
    if (won)
      out += "this entry's, for every reader.\n\n";
    else if (w.op < 0)
      out += "the module_state_spec of " + detail::entry_name(document, w.decider) +
             "; this entry's weight spec does not apply to it.\n\n";
    else
      out += detail::entry_name(document, w.decider) + "'s, through `" +
             index.ops[static_cast<std::size_t>(w.op)].name +
             "`, whose module ranks first (name entries, then type entries, then global); this "
             "entry's weight spec does not apply to it.\n\n";
  }
  return out;
}

// On the root key: what the whole config does, entry by entry (resolve::resolves), and
// the model's projected size.
std::optional<Hover> root_summary(const config::ConfigDocument& document, config::Position cursor,
                                  const Model* model) {
  const config::Range& root = document.root_range;
  if (document.root == config::Compressor::None || cursor < root.start || root.end < cursor)
    return std::nullopt;
  std::optional<std::string> size = root_size_text(document, model);
  auto resolution = detail::resolution_if_ready(document, model);
  if (!resolution && !size)
    return std::nullopt;
  Hover h;
  h.range = root;
  if (!resolution) {
    h.markdown = *size;
    return h;
  }
  std::vector<std::pair<resolve::Decider, std::pair<std::size_t, bool>>> per_entry;
  std::size_t full_precision = 0;
  for (const resolve::OpDecision& d : resolution->ops) {
    full_precision += d.full_precision ? 1 : 0;
    auto it = std::find_if(per_entry.begin(), per_entry.end(),
                           [&](auto& e) { return e.first == d.decider; });
    if (it == per_entry.end())
      per_entry.push_back({d.decider, {1, d.full_precision}});
    else
      ++it->second.first;
  }
  const detail::ResolutionWords words =
      detail::resolution_words(*model->index, resolution->compressor);
  h.markdown += "**" + plural(resolution->ops.size(), "op") + " " + words.configured_by +
                "** (coreai-opt's resolution, " + words.mode +
                "): " + std::to_string(resolution->ops.size() - full_precision) + " compressed, " +
                std::to_string(full_precision) +
                " left in full precision.\n\n| entry | line | ops |\n|---|---|---|\n";
  for (const auto& [who, count] : per_entry) {
    std::string name = who.kind == resolve::Decider::Kind::DefaultGlobal
                           ? std::string("default global_config")
                           : "`" + resolve::decider_path(document, who).back() + "`";
    std::string line = who.kind == resolve::Decider::Kind::DefaultGlobal
                           ? std::string()
                           : std::to_string(resolve::decider_line(document, who) + 1);
    h.markdown += "| " + name + " | " + line + " | " + std::to_string(count.first) +
                  (count.second ? " (full precision)" : "") + " |\n";
  }
  if (size)
    h.markdown += "\n" + *size;
  return h;
}

} // namespace

std::optional<Hover> hover(const config::ConfigDocument& document, config::Position cursor,
                           const Model* model, const HoverOptions& options) {
  const config::PatternKey* key = detail::key_at(document, cursor);
  if (!key)
    return root_summary(document, cursor, model);
  Hover h;
  h.range = key->range;
  std::string& md = h.markdown;
  md = "`" + key->text + "`: " + coreai::config_key(key->table) + " key";
  if (key->table == Table::OpName || key->table == Table::OpType)
    md += " in " + scope_text(key->scope);
  md += "\n\n";
  if (!model || !model->index) {
    md += "No model loaded yet: opscope shows what this key matches once the model is indexed.";
    return h;
  }
  const index::Index& index = *model->index;
  detail::ModelQueries queries(*model);
  if (key->table == Table::ModuleName || key->table == Table::OpName) {
    detail::CompiledPattern c = detail::compile_pattern(key->text, &*queries);
    if (!c.re) {
      md += c.status == index::PatternStatus::Kind::PythonOnly
                ? "This pattern uses " + c.error + ", which opscope cannot evaluate."
                : "Invalid regular expression: " + c.error;
      return h;
    }
  }
  detail::Matches m = detail::match_key(queries, *key, model->compressor);
  std::vector<int> compressed = detail::compressible(index, m.ops, model->compressor);

  if (key->table == Table::ModuleName) {
    if (const index::Module* exact = index.find_module(key->text); exact && !exact->name.empty())
      md += module_details(index, *exact);
  }
  md += "Matches ";
  if (key->table == Table::ModuleName || key->table == Table::ModuleType)
    md += plural(m.modules.size(), "module") + " and ";
  md += plural(m.ops.size(), "op");
  if (model->compressor != index::Compressor::None)
    md += " (" + std::to_string(compressed.size()) + " registered by the " +
          index::to_string(model->compressor) + ")";
  md += ".\n\n";

  if (!m.ops.empty()) {
    md += "| op | type | module | source |\n|---|---|---|---|\n";
    std::size_t shown = std::min(options.max_listed, m.ops.size());
    for (std::size_t i = 0; i < shown; ++i) {
      const index::Op& op = index.ops[static_cast<std::size_t>(m.ops[i])];
      std::string module = op.module_stack.empty() ? "" : op.module_stack.back().name;
      std::string where;
      if (auto loc = detail::op_location(op))
        where = source_link(*loc);
      md += "| `" + op.name + "` | " + index.type_for(op, model->compressor) + " | " +
            (module.empty() ? "(top)" : module) + " | " + where + " |\n";
    }
    if (m.ops.size() > shown)
      md += "\n… and " + std::to_string(m.ops.size() - shown) + " more\n";
    md += "\n";
  } else if (!m.modules.empty()) {
    md += "Modules: ";
    for (std::size_t i = 0; i < std::min(options.max_listed, m.modules.size()); ++i)
      md += (i ? ", " : "") +
            ("`" + index.modules[static_cast<std::size_t>(m.modules[i])].name + "`");
    md += "\n\n";
  }
  if (auto resolution = detail::resolution_if_ready(document, model, key->config_object)) {
    md += resolution_text(document, index, *resolution, *key);
    md += tied_text(document, index, *resolution, *key);
  }
  if (auto weights = detail::eager_weights_if_ready(document, model))
    md += eager_tied_text(document, index, *weights, *key);
  if (key->table == Table::ModuleName || key->table == Table::ModuleType)
    if (auto size = module_size_text(document, model, m.modules))
      md += *size;
  if (auto error =
          entry_weight_error_text(document, model, static_cast<int>(key - document.keys.data())))
    md += *error;
  md += precedence_note(key->table);
  return h;
}

} // namespace opscope::features
