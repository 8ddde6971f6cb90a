// What every dialect's reader keeps of a string the user wrote, and the text its answers build
// from names: one place, so a hover or `explain` reads alike whatever the library.
#pragma once

#include "opscope/config/positions.h"
#include "opscope/dialects/answers.h"
#include "opscope/index/index.h"

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opscope::dialects {

// A string the user wrote, where they wrote it (quotes included in `range`). In a
// LLaMA-Factory comma list (`lora_target: q_proj,v_proj`), each name's own range.
struct Written {
  std::string text;
  config::Range range;
};

// The last dotted part: a class's short name (`torch.nn.modules.linear.Linear` -> `Linear`),
// a module's leaf name (`model.layers.0.self_attn.q_proj` -> `q_proj`).
inline std::string last_part(const std::string& dotted) {
  auto dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

// Markdown code span.
inline std::string code_span(const std::string& s) {
  return "`" + s + "`";
}

// The text between a written string's quotes (a YAML plain scalar has none): what a completion
// or a fix replaces, so the user's quotes and prefix stay.
inline config::Range between_quotes(const Written& w) {
  config::Range r = w.range;
  int width = r.end.byte_col - r.start.byte_col;
  if (r.start.line == r.end.line && width == static_cast<int>(w.text.size()) + 2) {
    ++r.start.byte_col;
    --r.end.byte_col;
  }
  return r;
}

// Whether `label` holds the characters of `typed` in order, in any case: how editors filter a
// completion list, so a dialect offering thousands of names sends only those that can show.
inline bool holds_in_order(std::string_view label, std::string_view typed) {
  std::size_t i = 0;
  for (char c : label)
    if (i < typed.size() && std::tolower(static_cast<unsigned char>(c)) ==
                                std::tolower(static_cast<unsigned char>(typed[i])))
      ++i;
  return i == typed.size();
}

// A name to complete: the editor filters on it and writes it whole over `replace` (the string
// being typed, between_quotes()).
inline CompletionItem module_name_item(std::string label, std::string detail, std::string sort_text,
                                       config::Range replace) {
  CompletionItem item;
  item.kind = CompletionItem::Kind::Module;
  item.filter_text = label;
  item.edit = {replace, label};
  item.label = std::move(label);
  item.detail = std::move(detail);
  item.sort_text = std::move(sort_text);
  return item;
}

// A markdown list of `modules` (indexes into named_modules()) with their short types, at most
// `limit` of them and a count of the rest.
inline std::string module_list(const index::Index& model, const std::vector<int>& modules,
                               std::size_t limit = 12) {
  std::string out;
  const auto& all = model.named_modules();
  for (std::size_t i = 0; i < modules.size() && i < limit; ++i) {
    const index::ModuleObject& m = all[static_cast<std::size_t>(modules[i])];
    out += "- `" + (m.name.empty() ? std::string("(the model)") : m.name) + "` " +
           last_part(m.type) + "\n";
  }
  if (modules.size() > limit)
    out += "- ... and " + std::to_string(modules.size() - limit) + " more\n";
  return out;
}

} // namespace opscope::dialects
