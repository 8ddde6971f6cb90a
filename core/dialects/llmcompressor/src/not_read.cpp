#include "not_read.h"

#include "opscope/config/scalar_values.h"
#include "opscope/config/tree.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace opscope::dialects::llmcompressor {
namespace {

using config::Entry;
using config::Node;

bool is_modifier(std::string_view key) {
  const auto& c = modifier_classes();
  return std::find(c.begin(), c.end(), key) != c.end();
}

const Node* map_value(const Entry& e) {
  const Node* v = config::follow_aliases(e.value.get());
  return v && v->kind == Node::Kind::Map ? v : nullptr;
}

// The text split into lines (without their '\n'), to rewrite whole lines.
class Lines {
public:
  explicit Lines(std::string_view text) {
    std::size_t at = 0;
    for (std::size_t nl; (nl = text.find('\n', at)) != std::string_view::npos; at = nl + 1)
      lines_.push_back(text.substr(at, nl - at));
    lines_.push_back(text.substr(at));
  }
  std::string_view line(int i) const {
    return i >= 0 && static_cast<std::size_t>(i) < lines_.size()
               ? lines_[static_cast<std::size_t>(i)]
               : std::string_view();
  }
  char at(config::Position p) const {
    std::string_view l = line(p.line);
    return static_cast<std::size_t>(p.byte_col) < l.size() ? l[static_cast<std::size_t>(p.byte_col)]
                                                           : '\0';
  }
  // The text of a range on these lines.
  std::string text(config::Range r) const {
    std::string out;
    for (int i = r.start.line; i <= r.end.line; ++i) {
      std::string_view l = line(i);
      std::size_t from = i == r.start.line ? static_cast<std::size_t>(r.start.byte_col) : 0;
      std::size_t to = i == r.end.line ? static_cast<std::size_t>(r.end.byte_col) : l.size();
      from = std::min(from, l.size());
      out.append(l.substr(from, std::max(from, std::min(to, l.size())) - from));
      if (i != r.end.line)
        out += '\n';
    }
    return out;
  }

private:
  std::vector<std::string_view> lines_;
};

// How far the user indents a nested block map (`quant_stage:` / `  quant_modifiers:`): the
// first one written, else 2.
int indent_width(const Node& map) {
  for (const Entry& e : map.entries) {
    const Node* v = map_value(e);
    if (!v || v->entries.empty())
      continue;
    const Entry& child = v->entries.front();
    if (child.key_range.start.line > e.key_range.start.line &&
        child.key_range.start.byte_col > e.key_range.start.byte_col)
      return child.key_range.start.byte_col - e.key_range.start.byte_col;
    if (int w = indent_width(*v))
      return w;
  }
  return 0;
}

// `prefix_stage` (or `prefix_modifiers`) not yet a key of `map`: PyYAML keeps the last of two
// equal keys, so a second `quant_stage:` would drop the first.
std::string fresh_key(const Node* map, const std::string& prefix, const std::string& suffix) {
  for (int n = 1;; ++n) {
    std::string key = prefix + (n == 1 ? "" : "_" + std::to_string(n)) + suffix;
    if (!map || std::none_of(map->entries.begin(), map->entries.end(),
                             [&](const Entry& e) { return e.key == key; }))
      return key;
  }
}

// Wraps the entries [first, last] of `map` under `keys` (outermost first), where they are:
// in a block map, a line per key at the entries' column and the entries' lines indented a
// level per key (comments and blank lines kept); in a flow map (JSON, `{...}`), the keys and
// braces around the entries.
std::optional<Replacement> wrap(const Lines& lines, const Node& map, const Entry& first,
                                const Entry& last, const std::vector<std::string>& keys,
                                int width) {
  config::Position start = first.key_range.start;
  config::Position end = last.value ? last.value->range.end : last.key_range.end;
  std::string title = "Wrap in `";
  for (std::size_t i = 0; i < keys.size(); ++i)
    title += (i ? " " : "") + keys[i] + ":";
  title += "`";
  if (lines.at(map.range.start) == '{') {
    std::string before, after;
    for (const std::string& k : keys) {
      before += "\"" + k + "\": {";
      after += "}";
    }
    return Replacement{title, {start, end}, before + lines.text({start, end}) + after};
  }
  // A block map: only spaces before the first key, and nothing but a comment after the last
  // value on its line.
  std::string_view head =
      lines.line(start.line)
          .substr(0, std::min<std::size_t>(static_cast<std::size_t>(start.byte_col),
                                           lines.line(start.line).size()));
  if (head.find_first_not_of(' ') != std::string_view::npos)
    return std::nullopt;
  std::string_view last_line = lines.line(end.line);
  std::string_view tail = last_line.substr(
      std::min<std::size_t>(static_cast<std::size_t>(end.byte_col), last_line.size()));
  std::size_t rest = tail.find_first_not_of(" \t\r");
  if (rest != std::string_view::npos && tail[rest] != '#')
    return std::nullopt;
  std::string eol = !last_line.empty() && last_line.back() == '\r' ? "\r\n" : "\n";
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i)
    out +=
        std::string(static_cast<std::size_t>(start.byte_col) + i * static_cast<std::size_t>(width),
                    ' ') +
        keys[i] + ":" + eol;
  std::string shift(keys.size() * static_cast<std::size_t>(width), ' ');
  for (int i = start.line; i <= end.line; ++i) {
    std::string_view l = lines.line(i);
    bool blank = l.find_first_not_of(" \t\r") == std::string_view::npos;
    out += (blank ? "" : shift) + std::string(l) + (i == end.line ? "" : "\n");
  }
  if (out.ends_with('\r'))
    out.pop_back();
  int end_col = static_cast<int>(last_line.size()) - (eol.size() == 2 ? 1 : 0);
  return Replacement{title, {{start.line, 0}, {end.line, end_col}}, out};
}

// The stage and group names llm-compressor's examples use for these modifiers.
std::string prefix_for(const Node& map, std::size_t first, std::size_t last) {
  for (std::size_t i = first; i <= last; ++i)
    if (map.entries[i].key != "SparseGPTModifier")
      return "quant";
  return "sparsity";
}

// The quick fix of each modifier key llm-compressor does not read (by where its key starts):
// its run of adjacent modifiers wrapped, where they are, so that it is read in the order
// written. At the root (the flat form) in `quant_stage: quant_modifiers:`; right under a stage
// in `quant_modifiers:`; a root `*_modifiers` group holding only modifiers in `quant_stage:`.
// Modifiers under a key that is neither (`quant:`, `stage_0:`) get none: which the user meant
// is a guess.
std::map<config::Position, Replacement> wrap_fixes(std::string_view text) {
  std::map<config::Position, Replacement> out;
  // As read_llmcompressor_configs reads a recipe (a file starting with `{` is JSON, YAML's flow
  // maps are read as JSON too), its problems included: the keys are where it found them.
  bool json = config::guess_format("recipe", std::string(text)) == config::Format::Json;
  config::Tree tree = config::scan_tree(text, json ? config::Format::Json : config::Format::Yaml);
  const Node* root = tree.root && tree.root->kind == Node::Kind::Map ? tree.root.get() : nullptr;
  if (!root)
    return out;
  Lines lines(text);
  int width = indent_width(*root);
  width = width > 0 ? width : 2;
  auto offer = [&](const Node& map, std::size_t first, std::size_t last,
                   const std::vector<std::string>& keys, std::size_t on_first,
                   std::size_t on_last) {
    std::optional<Replacement> fix =
        wrap(lines, map, map.entries[first], map.entries[last], keys, width);
    if (!fix)
      return;
    for (std::size_t i = on_first; i <= on_last; ++i)
      out.emplace(map.entries[i].key_range.start, *fix);
  };
  // Each run of adjacent modifier keys, each with a map for its arguments (a modifier written
  // otherwise fails in llm-compressor wherever it is).
  auto runs = [&](const Node& map, auto&& each) {
    for (std::size_t i = 0; i < map.entries.size();) {
      if (!is_modifier(map.entries[i].key) || !map_value(map.entries[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j + 1 < map.entries.size() && is_modifier(map.entries[j + 1].key) &&
             map_value(map.entries[j + 1]))
        ++j;
      each(i, j);
      i = j + 1;
    }
  };
  runs(*root, [&](std::size_t i, std::size_t j) {
    std::string prefix = prefix_for(*root, i, j);
    offer(*root, i, j, {fresh_key(root, prefix, "_stage"), prefix + "_modifiers"}, i, j);
  });
  for (std::size_t s = 0; s < root->entries.size(); ++s) {
    const Entry& stage = root->entries[s];
    const Node* inside = map_value(stage);
    if (!inside || inside->entries.empty())
      continue;
    if (stage.key.ends_with("_stage")) {
      runs(*inside, [&](std::size_t i, std::size_t j) {
        offer(*inside, i, j, {fresh_key(inside, prefix_for(*inside, i, j), "_modifiers")}, i, j);
      });
    } else if (stage.key.ends_with("_modifiers")) {
      std::size_t n = inside->entries.size();
      if (std::any_of(inside->entries.begin(), inside->entries.end(),
                      [](const Entry& e) { return !is_modifier(e.key) || !map_value(e); }))
        continue; // llm-compressor would take its other keys for modifiers
      std::optional<Replacement> fix =
          wrap(lines, *root, stage, stage,
               {fresh_key(root, prefix_for(*inside, 0, n - 1), "_stage")}, width);
      if (fix)
        for (const Entry& e : inside->entries)
          out.emplace(e.key_range.start, *fix);
    }
  }
  return out;
}

} // namespace

std::vector<dialects::Finding> not_read(const std::vector<Modifier>& modifiers,
                                        std::optional<std::string_view> recipe_text) {
  bool none_read =
      std::none_of(modifiers.begin(), modifiers.end(), [](const Modifier& m) { return m.applied; });
  bool none_quantizes = std::none_of(modifiers.begin(), modifiers.end(), [](const Modifier& m) {
    return m.applied && quantizes(m.class_name);
  });
  std::vector<dialects::Finding> out;
  std::map<config::Position, Replacement> fixes;
  bool unread = std::any_of(modifiers.begin(), modifiers.end(), [](const Modifier& m) {
    return !m.applied && m.source == Source::RecipeYaml;
  });
  if (recipe_text && unread)
    fixes = wrap_fixes(*recipe_text);
  for (const Modifier& m : modifiers) {
    if (m.applied)
      continue;
    dialects::Finding f;
    f.range = m.anchor;
    f.severity = none_read ? dialects::Severity::Error : dialects::Severity::Warning;
    f.code = "recipe-not-read";
    f.message =
        "llm-compressor 0.14 reads modifiers only under `<name>_stage: <name>_modifiers:`; "
        "this `" +
        m.class_name + "` is never applied" +
        (quantizes(m.class_name) && none_quantizes ? " (the checkpoint is saved unquantized)"
                                                   : "") +
        ". Write it as `quant_stage:` / `  quant_modifiers:` / `    " + m.class_name + ": ...`";
    if (auto fix = fixes.find(m.anchor.start); fix != fixes.end())
      f.fixes.push_back(fix->second);
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace opscope::dialects::llmcompressor
