// Keeping a Python file's read when an edit is elsewhere: in a 5,000-line training script most
// keystrokes are in code that holds no config call, and a full parse of it costs milliseconds.
// The edit is provably elsewhere when its lines come after every config statement and name
// nothing the reader looks for: text after a statement never changes how it is tokenised (a
// syntax error there may make tree-sitter wrap earlier statements in an error node, but their
// calls stay whole nodes, which the reader still finds), and a variable bound there is bound
// after every setter that could use it. An edit above a config, where a stray `#` or `(` can
// swallow it, reads the whole text again.
#include "python_edit.h"
#include "splice.h"

#include "python_reader.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace opscope::config::detail {
namespace {

// Words whose appearance or disappearance changes what the reader finds.
constexpr std::string_view kTriggers[] = {"coreai_opt",  "Config",    "set_module", "only_for",
                                          "without",     "from_dict", "set_global", "Spec",
                                          "Granularity", "Schedule",  "Structured", "\\"};

std::size_t line_begin(std::string_view text, std::size_t offset) {
  std::size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

std::size_t line_end(std::string_view text, std::size_t offset) {
  std::size_t nl = text.find('\n', offset);
  return nl == std::string_view::npos ? text.size() : nl;
}

} // namespace

bool python_patch_elsewhere(ConfigDocument& document, const std::string& text) {
  std::string_view before = document.text, after = text;
  if (!document.problems.empty())
    return false;
  Splice splice = find_splice(before, after);
  std::size_t prefix = splice.begin;
  std::size_t suffix = before.size() - splice.old_end;
  if (prefix == before.size() && prefix == after.size())
    return false;
  // Whole lines on both sides: [first, old_last] became [first, new_last].
  std::size_t begin = line_begin(before, prefix);
  std::size_t old_end = line_end(before, before.size() - suffix);
  std::size_t new_end = line_end(after, after.size() - suffix);
  std::string_view old_lines = before.substr(begin, old_end - begin);
  std::string_view new_lines = after.substr(begin, new_end - begin);
  for (std::string_view lines : {old_lines, new_lines})
    if (lines.find('\r') != std::string_view::npos) // a lone CR is rewritten by read_config
      return false;
  int first = static_cast<int>(
      std::count(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(begin), '\n'));
  int old_last = first + static_cast<int>(std::count(old_lines.begin(), old_lines.end(), '\n'));
  int new_last = first + static_cast<int>(std::count(new_lines.begin(), new_lines.end(), '\n'));

  // No config statement on the lines, nothing the reader looks for written on them.
  for (const auto& [from, to] : document.config_lines) {
    if (to >= first)
      return false;
  }
  for (std::string_view word : kTriggers)
    if (old_lines.find(word) != std::string_view::npos ||
        new_lines.find(word) != std::string_view::npos)
      return false;
  // Nothing read lies on (or after) the edited lines: what follows them moves by whole lines.
  int shift = new_last - old_last;
  auto move = [&](Position& p) {
    if (p.line > old_last)
      p.line += shift;
  };
  auto move_range = [&](Range& r) {
    move(r.start);
    move(r.end);
  };
  for (PatternKey& k : document.keys) {
    move_range(k.range);
    move_range(k.scope.key_range);
  }
  move_range(document.root_range);
  move_range(document.execution_mode_range);
  if (document.global_config_range)
    move_range(*document.global_config_range);
  for (DuplicateKey& d : document.duplicates) {
    move_range(d.first);
    move_range(d.duplicate);
  }
  for (UnknownField& u : document.unknown_fields)
    move_range(u.range);
  for (UncheckedName& u : document.unchecked)
    move_range(u.range);
  for (auto& [from, to] : document.config_lines) {
    if (from > old_last) {
      from += shift;
      to += shift;
    }
  }
  document.text = text;
  return true;
}

} // namespace opscope::config::detail
