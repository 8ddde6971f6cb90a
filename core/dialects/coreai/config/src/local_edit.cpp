#include "opscope/coreai/config/local_edit.h"

#include "python_edit.h"
#include "splice.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

namespace opscope::config {
namespace {

using detail::find_splice;
using detail::Splice;

// Bytes that cannot end, escape or restructure the key they are typed into (a backslash
// escapes only inside double quotes; regex keys are full of them in single quotes).
bool inert_in_quoted(char c, char quote) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u != 0x7f && c != quote && (c != '\\' || quote == '\'');
}

// A plain key ends at ": " (in a flow collection also at , [ ] { }) and a comment starts at
// " #"; its first byte may start an alias, anchor, tag, flow collection or quote. Inside it,
// these bytes change nothing of that.
bool inert_in_plain(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x80)
    return true;
  return std::isalnum(u) || std::string_view("_.\\()?+*^$|-/=~").find(c) != std::string_view::npos;
}

// memchr from break to break: std::count's byte loop was 6 M instructions a keystroke at
// the middle of a 50,000-key config.
int lines_before(std::string_view text) {
  int lines = 0;
  const char* end = text.data() + text.size();
  for (const char* p = text.data(); (p = static_cast<const char*>(std::memchr(p, '\n', end - p)));
       ++p)
    ++lines;
  return lines;
}

bool on_line(const Range& r, int line) {
  return r.start.line == line || r.end.line == line;
}

// What changes when an edit stays inside one pattern key: that key (and its aliased copies)
// gets `new_key` and `new_range`, and so does the scope of the keys nested under it.
struct KeyPatch {
  Range old_range;
  Range new_range;
  std::string new_key;
  int text_col = 0; // column of the key's first character (after an opening quote)
};

std::optional<KeyPatch> plan(const ConfigDocument& previous, const std::string& text) {
  if (previous.format == Format::Python)
    return std::nullopt; // Python's escapes and string prefixes differ: see python_edit.cpp
  Splice splice = find_splice(previous.text, text);
  std::string_view removed(previous.text.data() + splice.begin, splice.old_end - splice.begin);
  std::string_view inserted(text.data() + splice.begin, splice.new_end - splice.begin);
  if (removed.empty() && inserted.empty())
    return std::nullopt; // same text (or only a lone '\r' read_config would rewrite)

  // The edited position as (line, column) of the previous text.
  std::size_t newline =
      splice.begin == 0 ? std::string::npos : previous.text.rfind('\n', splice.begin - 1);
  std::size_t line_start = newline == std::string::npos ? 0 : newline + 1;
  int line = lines_before(std::string_view(previous.text).substr(0, line_start));
  int col = static_cast<int>(splice.begin - line_start);
  int old_end_col = col + static_cast<int>(removed.size());
  int delta = static_cast<int>(inserted.size()) - static_cast<int>(removed.size());

  // Exactly one written pattern key on the line, and the edit inside its text.
  const PatternKey* edited = nullptr;
  for (const PatternKey& key : previous.keys) {
    if (!on_line(key.range, line) || key.via_alias)
      continue;
    if (edited && edited->range != key.range)
      return std::nullopt;
    edited = &key;
  }
  if (!edited || edited->range.start.line != line || edited->range.end.line != line)
    return std::nullopt;
  int key_begin = edited->range.start.byte_col;
  int key_end = edited->range.end.byte_col;
  if (edited->quoted) {
    // Between the quotes of a terminated key without escapes: its columns run one per byte.
    if (key_end - key_begin != static_cast<int>(edited->text.size()) + 2 || col < key_begin + 1 ||
        old_end_col > key_end - 1)
      return std::nullopt;
    auto inert = [&](char c) { return inert_in_quoted(c, edited->quote); };
    std::string_view written(previous.text.data() + line_start + key_begin + 1,
                             edited->text.size());
    if (!std::all_of(written.begin(), written.end(), inert))
      return std::nullopt; // an escape (kept as written when invalid) is somewhere in the key
    if (!std::all_of(removed.begin(), removed.end(), inert) ||
        !std::all_of(inserted.begin(), inserted.end(), inert))
      return std::nullopt;
  } else {
    // Inside or at the end of a plain YAML key, never at its first byte.
    if (previous.format != Format::Yaml ||
        !std::all_of(edited->text.begin(), edited->text.end(), inert_in_plain))
      return std::nullopt;
    if (key_end - key_begin != static_cast<int>(edited->text.size()) || col < key_begin + 1 ||
        old_end_col > key_end)
      return std::nullopt;
    if (!std::all_of(removed.begin(), removed.end(), inert_in_plain) ||
        !std::all_of(inserted.begin(), inserted.end(), inert_in_plain))
      return std::nullopt;
  }
  std::size_t first = static_cast<std::size_t>(col - key_begin - (edited->quoted ? 1 : 0));
  std::string new_key = edited->text;
  new_key.replace(first, removed.size(), inserted);
  if (new_key.empty())
    return std::nullopt;

  // Nothing else the reader reports may sit on the line, and the new key may not equal
  // another one (that would add a duplicate).
  if (on_line(previous.root_range, line) ||
      (previous.execution_mode && on_line(previous.execution_mode_range, line)))
    return std::nullopt;
  for (const SyntaxProblem& p : previous.problems)
    if (on_line(p.range, line))
      return std::nullopt;
  for (const UnknownField& u : previous.unknown_fields)
    if (on_line(u.range, line))
      return std::nullopt;
  for (const DuplicateKey& d : previous.duplicates)
    if (on_line(d.first, line) || on_line(d.duplicate, line) || d.key == edited->text)
      return std::nullopt;
  for (const PatternKey& key : previous.keys)
    if (key.text == new_key)
      return std::nullopt;

  Range new_range = edited->range;
  new_range.end.byte_col += delta;
  return KeyPatch{edited->range, new_range, std::move(new_key),
                  key_begin + (edited->quoted ? 1 : 0)};
}

void apply(const KeyPatch& patch, ConfigDocument& doc) {
  for (PatternKey& key : doc.keys) {
    if (key.range == patch.old_range) { // the key, and its copies merged elsewhere by aliases
      key.text = patch.new_key;
      key.range = patch.new_range;
      key.byte_cols.resize(patch.new_key.size() + 1);
      for (std::size_t i = 0; i < key.byte_cols.size(); ++i)
        key.byte_cols[i] = patch.text_col + static_cast<int>(i);
    }
    if (key.scope.key_range == patch.old_range) { // keys nested under the edited one
      key.scope.key = patch.new_key;
      key.scope.key_range = patch.new_range;
    }
  }
}

} // namespace

std::optional<ConfigDocument> reread_after_local_edit(const ConfigDocument& previous,
                                                      const std::string& text) {
  if (previous.format == Format::Python) {
    ConfigDocument copy = previous;
    if (!detail::python_patch_elsewhere(copy, text))
      return std::nullopt;
    return copy;
  }
  std::optional<KeyPatch> patch = plan(previous, text);
  if (!patch)
    return std::nullopt;
  ConfigDocument doc;
  doc.format = previous.format;
  doc.text = text;
  doc.root = previous.root;
  doc.root_range = previous.root_range;
  doc.execution_mode = previous.execution_mode;
  doc.execution_mode_range = previous.execution_mode_range;
  doc.duplicates = previous.duplicates;
  doc.problems = previous.problems;
  doc.unknown_fields = previous.unknown_fields;
  doc.tree = previous.tree; // values are unchanged by an edit inside a pattern key
  doc.keys = previous.keys;
  apply(*patch, doc);
  return doc;
}

bool patch_after_local_edit(ConfigDocument& document, const std::string& text) {
  if (document.format == Format::Python)
    return detail::python_patch_elsewhere(document, text);
  std::optional<KeyPatch> patch = plan(document, text);
  if (!patch)
    return false;
  document.text = text;
  apply(*patch, document);
  return true;
}

} // namespace opscope::config
