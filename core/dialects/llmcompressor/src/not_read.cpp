#include "not_read.h"

#include "opscope/config/scalar_values.h"
#include "opscope/config/tree.h"

#include <algorithm>
#include <map>
#include <set>
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

// The text split into lines (without their line ends), to rewrite whole lines.
class Lines {
public:
  explicit Lines(std::string_view text) {
    std::size_t at = 0;
    for (std::size_t nl; (nl = text.find('\n', at)) != std::string_view::npos; at = nl + 1) {
      std::string_view l = text.substr(at, nl - at);
      crlf_ = crlf_ || l.ends_with('\r');
      lines_.push_back(l.ends_with('\r') ? l.substr(0, l.size() - 1) : l);
    }
    lines_.push_back(text.substr(at));
  }
  std::string_view line(int i) const {
    return i >= 0 && static_cast<std::size_t>(i) < lines_.size()
               ? lines_[static_cast<std::size_t>(i)]
               : std::string_view();
  }
  const char* eol() const { return crlf_ ? "\r\n" : "\n"; }
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
        out += eol();
    }
    return out;
  }
  // Does [start, end) have lines of its own: only spaces before it, nothing but a comment
  // after it?
  bool alone(config::Position start, config::Position end) const {
    std::string_view first = line(start.line), last = line(end.line);
    std::string_view head =
        first.substr(0, std::min(first.size(), static_cast<std::size_t>(start.byte_col)));
    std::string_view tail =
        last.substr(std::min(last.size(), static_cast<std::size_t>(end.byte_col)));
    std::size_t rest = tail.find_first_not_of(" \t");
    return head.find_first_not_of(' ') == std::string_view::npos &&
           (rest == std::string_view::npos || tail[rest] == '#');
  }
  // Line `i` moved `shift` columns (left only over its spaces); a blank line stays empty.
  std::string shifted(int i, int shift) const {
    std::string_view l = line(i);
    std::size_t spaces = std::min(l.find_first_not_of(' '), l.size());
    if (spaces == l.size())
      return "";
    if (shift >= 0)
      return std::string(static_cast<std::size_t>(shift), ' ') + std::string(l);
    return std::string(l.substr(std::min(spaces, static_cast<std::size_t>(-shift))));
  }
  // Whole lines [first, last], as a range (its last line's end excluded).
  config::Range whole(int first, int last) const {
    return {{first, 0}, {last, static_cast<int>(line(last).size())}};
  }

private:
  std::vector<std::string_view> lines_;
  bool crlf_ = false;
};

// A flow value on one line: YAML folds a line break in a flow collection or a quoted string
// (with the spaces around it) into one space, as JSON allows.
std::string one_line(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n' && s[i] != '\r') {
      out += s[i];
      continue;
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '\t' || out.back() == '\r'))
      out.pop_back();
    while (i + 1 < s.size() && std::string_view(" \t\r\n").find(s[i + 1]) != std::string_view::npos)
      ++i;
    out += ' ';
  }
  return out;
}

// How far the user indents a nested block map (`quant_stage:` / `  quant_modifiers:`): the
// first one written, else 0.
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

std::string keys_title(const char* verb, const std::vector<std::string>& keys) {
  std::string title = std::string(verb) + " `";
  for (std::size_t i = 0; i < keys.size(); ++i)
    title += (i ? " " : "") + keys[i] + ":";
  return title + "`";
}

// Block lines opening `keys` (outermost first) at `column`, a level of `width` each.
std::string key_lines(const Lines& lines, const std::vector<std::string>& keys, int column,
                      int width) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i)
    out += std::string(static_cast<std::size_t>(column + static_cast<int>(i) * width), ' ') +
           keys[i] + ":" + lines.eol();
  return out;
}

// In a flow map (JSON): `"k1": {"k2": {` + items + `}}`.
std::string flow_keys(const std::vector<std::string>& keys, const std::string& items) {
  std::string out;
  for (const std::string& k : keys)
    out += "\"" + k + "\": {";
  return out + items + std::string(keys.size(), '}');
}

config::Position end_of(const Entry& e) {
  return e.value ? e.value->range.end : e.key_range.end;
}

// Wraps the entries [first, last] of `map` under `keys` (outermost first), where they are:
// in a block map, a line per key at the entries' column and the entries' lines indented a
// level per key (comments and blank lines kept); in a flow map (JSON, `{...}`), the keys and
// braces around the entries.
std::optional<Fix> wrap(const Lines& lines, const Node& map, const Entry& first, const Entry& last,
                        const std::vector<std::string>& keys, int width) {
  config::Position start = first.key_range.start, end = end_of(last);
  std::string title = keys_title("Wrap in", keys);
  if (lines.at(map.range.start) == '{')
    return Fix{title, {{start, end}, flow_keys(keys, lines.text({start, end}))}, true};
  if (!lines.alone(start, end))
    return std::nullopt;
  std::string out = key_lines(lines, keys, start.byte_col, width);
  int shift = static_cast<int>(keys.size()) * width;
  for (int i = start.line; i <= end.line; ++i)
    out += lines.shifted(i, shift) + (i == end.line ? "" : lines.eol());
  return Fix{title, {lines.whole(start.line, end.line), out}, true};
}

// The modifier keys under `map` (its own; with `levels` 2 also those of the maps in it), each
// with a map for its arguments, in the order written.
void modifiers_in(const Node& map, int levels, std::vector<const Entry*>& out) {
  for (const Entry& e : map.entries)
    if (is_modifier(e.key)) {
      if (map_value(e))
        out.push_back(&e);
    } else if (levels > 1 && e.value && e.value->kind == Node::Kind::Map) {
      modifiers_in(*e.value, levels - 1, out);
    }
}

// A flow map as written, less the modifiers modifiers_in() takes.
std::string flow_without(const Lines& lines, const Node& map, int levels) {
  std::string out = "{";
  for (const Entry& e : map.entries) {
    if (is_modifier(e.key) && map_value(e))
      continue;
    std::string item;
    if (!is_modifier(e.key) && levels > 1 && e.value && e.value->kind == Node::Kind::Map)
      item = lines.text({e.key_range.start, e.value->range.start}) +
             flow_without(lines, *e.value, levels - 1);
    else
      item = lines.text({e.key_range.start, end_of(e)});
    out += (out.size() > 1 ? ", " : "") + one_line(item);
  }
  return out + "}";
}

// Where move_out() puts modifiers: a new stage (empty when they go to groups of the stage they
// are in) and its groups, each holding modifiers of different classes (a map keeps one of two
// equal keys).
struct Destination {
  std::string stage;
  std::vector<std::pair<std::string, std::vector<const Entry*>>> groups;
};

// Moves the modifiers of `to` out of the entry `holder` of `parent`, to keys opened right after
// it, at its column: where llm-compressor reads them, in the order written, after what it reads
// before `holder` (nothing in `holder`) and before what it reads after. What else `holder`
// holds stays (left empty, it is a null llm-compressor skips).
std::optional<Fix> move_out(const Lines& lines, const Node& parent, const Entry& holder,
                            const Destination& to, int width) {
  const Node& inside = *holder.value;
  config::Position start = holder.key_range.start, end = inside.range.end;
  std::vector<std::string> title_keys;
  if (!to.stage.empty())
    title_keys.push_back(to.stage);
  title_keys.push_back(to.groups.front().first);
  std::string title = keys_title("Move to", title_keys);
  if (to.groups.size() > 1)
    title += " (in " + std::to_string(to.groups.size()) + " groups)";
  int column = start.byte_col, depth = to.stage.empty() ? 1 : 2;
  auto text_of = [&](const Entry* m) { return lines.text({m->key_range.start, end_of(*m)}); };
  if (lines.at(inside.range.start) == '{') {
    std::string kept = lines.text({start, inside.range.start}) + flow_without(lines, inside, depth);
    if (lines.at(parent.range.start) == '{') {
      std::string groups;
      for (const auto& [group, modifiers] : to.groups) {
        std::string items;
        for (const Entry* m : modifiers)
          items += (items.empty() ? "" : ", ") + one_line(text_of(m));
        groups += (groups.empty() ? "" : ", ") + flow_keys({group}, items);
      }
      return Fix{
          title,
          {{start, end}, kept + ", " + (to.stage.empty() ? groups : flow_keys({to.stage}, groups))},
          true};
    }
    if (!lines.alone(start, end))
      return std::nullopt;
    std::string out = kept;
    if (!to.stage.empty())
      out += lines.eol() + std::string(static_cast<std::size_t>(column), ' ') + to.stage + ":";
    for (const auto& [group, modifiers] : to.groups) {
      out += lines.eol() +
             std::string(static_cast<std::size_t>(column + (depth - 1) * width), ' ') + group + ":";
      for (const Entry* m : modifiers)
        out += lines.eol() + std::string(static_cast<std::size_t>(column + depth * width), ' ') +
               one_line(text_of(m));
    }
    return Fix{title, {{start, end}, out}, true};
  }
  if (!lines.alone(start, end))
    return std::nullopt;
  std::vector<bool> taken(static_cast<std::size_t>(end.line - start.line + 1), false);
  std::string out_of;
  if (!to.stage.empty())
    out_of += lines.eol() + std::string(static_cast<std::size_t>(column), ' ') + to.stage + ":";
  for (const auto& [group, modifiers] : to.groups) {
    out_of += lines.eol() +
              std::string(static_cast<std::size_t>(column + (depth - 1) * width), ' ') + group +
              ":";
    for (const Entry* m : modifiers) {
      config::Position from = m->key_range.start, until = end_of(*m);
      if (from.line <= start.line || until.line > end.line || !lines.alone(from, until))
        return std::nullopt;
      for (int i = from.line; i <= until.line; ++i) {
        taken[static_cast<std::size_t>(i - start.line)] = true;
        out_of += lines.eol() + lines.shifted(i, column + depth * width - from.byte_col);
      }
    }
  }
  std::string out;
  for (int i = start.line; i <= end.line; ++i)
    if (!taken[static_cast<std::size_t>(i - start.line)])
      out += (i == start.line ? "" : lines.eol()) + std::string(lines.line(i));
  return Fix{title, {lines.whole(start.line, end.line), out + out_of}, true};
}

// The stage and group names llm-compressor's examples use for these modifiers.
std::string prefix_for(const std::vector<const Entry*>& modifiers) {
  for (const Entry* m : modifiers)
    if (m->key != "SparseGPTModifier")
      return "quant";
  return "sparsity";
}

// The quick fix of each modifier key llm-compressor does not read (by where its key starts),
// which makes it read in the order written. Where the user's keys can stay, its run of adjacent
// modifiers is wrapped where it is: at the root (the flat form) in `quant_stage:
// quant_modifiers:`, right under a stage (the two-level form) in `quant_modifiers:`, and a root
// `*_modifiers` group holding only modifiers in `quant_stage:`. Under a key that is neither a
// stage nor a group (`quant:`, `stage_0:`, a group not under a stage holding other keys), the
// modifiers are moved out of it to a stage (a group) of their own right after it.
std::map<config::Position, Fix> recipe_fixes(std::string_view text) {
  std::map<config::Position, Fix> out;
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
  auto offer = [&](const std::optional<Fix>& fix, const std::vector<const Entry*>& modifiers) {
    if (fix)
      for (const Entry* m : modifiers)
        out.emplace(m->key_range.start, *fix);
  };
  // Each run of adjacent modifier keys, each with a map for its arguments (a modifier written
  // otherwise fails in llm-compressor wherever it is).
  auto runs = [&](const Node& map, auto&& each) {
    for (std::size_t i = 0; i < map.entries.size();) {
      std::vector<const Entry*> run;
      while (i < map.entries.size() && is_modifier(map.entries[i].key) && map_value(map.entries[i]))
        run.push_back(&map.entries[i++]);
      if (run.empty())
        ++i;
      else
        each(run);
    }
  };
  runs(*root, [&](const std::vector<const Entry*>& run) {
    std::string prefix = prefix_for(run);
    offer(wrap(lines, *root, *run.front(), *run.back(),
               {fresh_key(root, prefix, "_stage"), prefix + "_modifiers"}, width),
          run);
  });
  // Moves the modifiers of `holder` (an entry of `parent` whose value is written as a map) to a
  // new stage after it (`stage`), else to new groups after it.
  auto move = [&](const Node& parent, const Entry& holder, int levels, bool stage) {
    std::vector<const Entry*> moved;
    modifiers_in(*holder.value, levels, moved);
    if (moved.empty())
      return;
    std::string prefix = prefix_for(moved);
    Destination to;
    if (stage)
      to.stage = fresh_key(&parent, prefix, "_stage");
    std::set<std::string> taken; // group names, beside the keys of `parent` when it holds them
    for (const Entry* m : moved) {
      if (to.groups.empty() ||
          std::any_of(to.groups.back().second.begin(), to.groups.back().second.end(),
                      [&](const Entry* e) { return e->key == m->key; })) {
        std::string group;
        for (int n = 1; group.empty() || taken.contains(group); ++n)
          group = fresh_key(stage ? nullptr : &parent,
                            prefix + (n == 1 ? "" : "_" + std::to_string(n)), "_modifiers");
        taken.insert(group);
        to.groups.push_back({group, {}});
      }
      to.groups.back().second.push_back(m);
    }
    offer(move_out(lines, parent, holder, to, width), moved);
  };
  for (const Entry& top : root->entries) {
    const Node* inside = map_value(top);
    if (!inside || inside->entries.empty())
      continue;
    bool written_here = top.value->kind == Node::Kind::Map; // not through an alias
    if (top.key.ends_with("_stage")) {
      runs(*inside, [&](const std::vector<const Entry*>& run) {
        offer(wrap(lines, *inside, *run.front(), *run.back(),
                   {fresh_key(inside, prefix_for(run), "_modifiers")}, width),
              run);
      });
      if (written_here)
        for (const Entry& group : inside->entries)
          if (!is_modifier(group.key) && !group.key.ends_with("_modifiers") && group.value &&
              group.value->kind == Node::Kind::Map)
            move(*inside, group, 1, false);
    } else if (top.key.ends_with("_modifiers") &&
               std::all_of(inside->entries.begin(), inside->entries.end(),
                           [](const Entry& e) { return is_modifier(e.key) && map_value(e); })) {
      std::vector<const Entry*> all;
      for (const Entry& e : inside->entries)
        all.push_back(&e);
      offer(wrap(lines, *root, top, top, {fresh_key(root, prefix_for(all), "_stage")}, width), all);
    } else if (written_here && top.key != "args") { // args are the recipe's, not a stage
      move(*root, top, 2, true);
    }
  }
  return out;
}

} // namespace

std::vector<dialects::Diagnostic> not_read(const std::vector<Modifier>& modifiers,
                                           std::optional<std::string_view> recipe_text) {
  bool none_read =
      std::none_of(modifiers.begin(), modifiers.end(), [](const Modifier& m) { return m.applied; });
  bool none_quantizes = std::none_of(modifiers.begin(), modifiers.end(), [](const Modifier& m) {
    return m.applied && quantizes(m.class_name);
  });
  std::vector<dialects::Diagnostic> out;
  std::map<config::Position, Fix> fixes;
  bool unread = std::any_of(modifiers.begin(), modifiers.end(), [](const Modifier& m) {
    return !m.applied && m.source == Source::RecipeYaml;
  });
  if (recipe_text && unread)
    fixes = recipe_fixes(*recipe_text);
  for (const Modifier& m : modifiers) {
    if (m.applied)
      continue;
    dialects::Diagnostic f;
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
