#include "opscope/features/overridden.h"

#include "move_below.h"
#include "resolution.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace opscope::features {
namespace {

using config::PatternKey;
using config::Table;

// `no-effect`: the entry's modules (and everything inside them) hold ops, but none the
// compressor configures (GPT-2's Conv1D computes with addmm): its specs change nothing.
std::optional<Diagnostic> no_effect(const index::Index& index, const PatternKey& key,
                                    const resolve::EntryMatch& entry,
                                    const std::vector<bool>& covered,
                                    index::Compressor compressor) {
  std::vector<std::string> types;
  std::size_t ops = 0;
  for (std::size_t m = 0; m < covered.size(); ++m) {
    if (!covered[m])
      continue;
    for (int op : index.modules[m].ops) {
      const index::Op& o = index.ops[static_cast<std::size_t>(op)];
      if (o.kind != index::OpKind::Call)
        continue;
      ++ops;
      if (!o.type.empty() && std::find(types.begin(), types.end(), o.type) == types.end())
        types.push_back(o.type);
    }
  }
  if (ops == 0)
    return std::nullopt;
  const detail::ResolutionWords words = detail::resolution_words(index, compressor);
  std::string held;
  for (std::size_t i = 0; i < types.size() && i < 6; ++i)
    held += (i ? ", `" : "`") + types[i] + "`";
  if (types.size() > 6)
    held += " and " + std::to_string(types.size() - 6) + " more types";
  std::size_t modules = entry.modules.size();
  Diagnostic d;
  d.range = key.range;
  d.severity = Severity::Warning;
  d.code = "no-effect";
  d.message = "`" + key.text + "` matches " + std::to_string(modules) +
              (modules == 1 ? " module" : " modules") + " but none of their " +
              std::to_string(ops) + (ops == 1 ? " op" : " ops") + " is one " + words.compresses +
              words.registered + ": they compute with " + held +
              ", so this entry changes nothing and their weights stay in full precision";
  return d;
}

// The move-below fix when every entry taking this one's ops is a later entry of its own
// table (moving it below them makes coreai-opt apply it first); none when a stronger table
// or the global config takes them, where no order helps.
// `lines`: the document's lines, split on first use.
std::optional<Fix> move_below_winners(const config::ConfigDocument& doc,
                                      std::optional<std::vector<std::string_view>>& lines,
                                      const PatternKey& key,
                                      const std::vector<resolve::Decider>& winners) {
  const PatternKey* last = nullptr;
  for (const resolve::Decider& w : winners) {
    if (w.kind != resolve::Decider::Kind::Key)
      return std::nullopt;
    const PatternKey& other = doc.keys[static_cast<std::size_t>(w.key)];
    if (other.table != key.table || !(other.scope == key.scope) ||
        !(key.range.start < other.range.start))
      return std::nullopt;
    if (!last || last->range.start < other.range.start)
      last = &other;
  }
  if (!last)
    return std::nullopt;
  if (!lines)
    lines = detail::document_lines(doc.text);
  return detail::move_below(doc, *lines, key, *last);
}

} // namespace

std::vector<Diagnostic> overridden_diagnostics(const config::ConfigDocument& document,
                                               const index::Index& index,
                                               const resolve::Resolution& resolution) {
  std::vector<Diagnostic> out;
  std::optional<std::vector<std::string_view>> lines; // for the move-below fixes
  const std::size_t n = index.modules.size();
  std::vector<bool> covered(n, false);
  for (const resolve::EntryMatch& entry : resolution.entries) {
    const std::size_t k = static_cast<std::size_t>(entry.key);
    const PatternKey& key = document.keys[k];
    if (entry.modules.empty())
      continue;
    // Modules the key matches, or whose ancestor it matches (parents precede children).
    std::fill(covered.begin(), covered.end(), false);
    for (int m : entry.modules)
      covered[static_cast<std::size_t>(m)] = true;
    for (std::size_t m = static_cast<std::size_t>(entry.modules.front()) + 1; m < n; ++m) {
      int parent = index.modules[m].parent;
      if (parent >= 0 && covered[static_cast<std::size_t>(parent)])
        covered[m] = true;
    }
    std::size_t matched = 0, governed = 0;
    std::map<std::pair<int, int>, std::size_t> winners; // (kind, key) -> ops taken
    std::vector<resolve::Decider> winner_order;
    for (const resolve::OpDecision& d : resolution.ops) {
      if (!covered[static_cast<std::size_t>(d.module)])
        continue;
      ++matched;
      // The module config deciding the op: its pattern's first op's (a relu after a conv goes
      // with the conv's).
      const resolve::Decider& module_decider = d.module_entry;
      // Ops decided by the op tables inside this entry's config are its too.
      if (module_decider.kind == resolve::Decider::Kind::Key &&
          static_cast<std::size_t>(module_decider.key) == k) {
        ++governed;
        continue;
      }
      auto [it, inserted] = winners.emplace(
          std::make_pair(static_cast<int>(module_decider.kind), module_decider.key), 0);
      if (inserted)
        winner_order.push_back(module_decider);
      ++it->second;
    }
    if (matched == 0) {
      if (std::optional<Diagnostic> d =
              no_effect(index, key, entry, covered, resolution.compressor))
        out.push_back(std::move(*d));
      continue;
    }
    if (governed == matched)
      continue;
    std::string who;
    for (std::size_t i = 0; i < winner_order.size() && i < 3; ++i)
      who += (i ? ", " : "") + detail::entry_name(document, winner_order[i]);
    if (winner_order.size() > 3)
      who += " and " + std::to_string(winner_order.size() - 3) + " more";
    Diagnostic d;
    d.range = key.range;
    std::string ops = std::to_string(matched) + (matched == 1 ? " op" : " ops");
    if (governed == 0) {
      if (std::optional<Fix> fix = move_below_winners(document, lines, key, winner_order))
        d.fixes.push_back(std::move(*fix));
      d.severity = Severity::Warning;
      d.code = "overridden";
      d.message = "`" + key.text + "` decides none of the ops it matches (" + ops +
                  "): " + (matched == 1 ? "it goes to " : "they go to ") + who +
                  " (coreai-opt: module names beat module types, the last matching entry of a "
                  "table wins, a claimed module's children go with it" +
                  (resolution.compressor == index::Compressor::Quantizer
                       ? ", and an op in a pattern such as conv -> bn -> relu goes with the "
                         "pattern's first op)"
                       : ")");
    } else {
      d.severity = Severity::Information;
      d.code = "partly-overridden";
      std::size_t others = matched - governed;
      d.message = "`" + key.text + "` decides " + std::to_string(governed) + " of the " + ops +
                  " it matches; the other " + std::to_string(others) +
                  (others == 1 ? " goes" : " go") + " to " + who;
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(),
            [](const Diagnostic& a, const Diagnostic& b) { return a.range.start < b.range.start; });
  return out;
}

} // namespace opscope::features
