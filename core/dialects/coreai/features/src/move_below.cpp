#include "move_below.h"

#include <string>
#include <string_view>
#include <vector>

namespace opscope::features::detail {

// The last line may have no line break.
std::vector<std::string_view> document_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

namespace {

// Columns of leading spaces; -1 for a blank line. A tab in the indentation is not YAML.
int indent_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ')
    ++i;
  if (i == line.size() || line[i] == '\n' || line[i] == '\r')
    return -1;
  return static_cast<int>(i);
}

bool comment_line(std::string_view line) {
  int indent = indent_of(line);
  return indent >= 0 && line[static_cast<std::size_t>(indent)] == '#';
}

// The lines an entry keyed on `line` spans: the comment lines right above it at its own
// indentation, the key line and every line indented deeper (blank lines inside included).
// Returns [first, end) or nothing when the key does not start its line.
std::optional<std::pair<int, int>> entry_lines(const std::vector<std::string_view>& lines,
                                               const config::PatternKey& key) {
  const int line = key.range.start.line;
  if (line < 0 || static_cast<std::size_t>(line) >= lines.size())
    return std::nullopt;
  const int indent = indent_of(lines[static_cast<std::size_t>(line)]);
  if (indent != key.range.start.byte_col) // `- key:`, `{a: 1, key: 2}`, several keys a line
    return std::nullopt;
  int first = line;
  while (first > 0 && comment_line(lines[static_cast<std::size_t>(first - 1)]) &&
         indent_of(lines[static_cast<std::size_t>(first - 1)]) == indent)
    --first;
  int end = line + 1;
  for (int j = line + 1; static_cast<std::size_t>(j) < lines.size(); ++j) {
    int i = indent_of(lines[static_cast<std::size_t>(j)]);
    if (i < 0)
      continue; // blank: the block's if a deeper line follows
    if (i <= indent)
      break;
    end = j + 1;
  }
  return std::make_pair(first, end);
}

} // namespace

std::optional<Fix> move_below(const config::ConfigDocument& document,
                              const std::vector<std::string_view>& lines,
                              const config::PatternKey& entry, const config::PatternKey& last) {
  if (document.format != config::Format::Yaml || entry.via_alias || last.via_alias ||
      !(entry.range.start < last.range.start) ||
      last.range.start.line - entry.range.start.line > kMaxLinesMovedPast)
    return std::nullopt;
  auto moved = entry_lines(lines, entry);
  auto after = entry_lines(lines, last);
  if (!moved || !after || entry.range.start.byte_col != last.range.start.byte_col ||
      moved->second > after->first || after->second - moved->second > kMaxLinesMovedPast)
    return std::nullopt;
  // Everything between the entry and the end of the last overrider's block must sit in the
  // same mapping: no line there indented less than the entry (a parent's sibling).
  for (int j = moved->second; j < after->second; ++j)
    if (int i = indent_of(lines[static_cast<std::size_t>(j)]);
        i >= 0 && i < entry.range.start.byte_col)
      return std::nullopt;
  auto join = [&](int from, int to) {
    std::string text;
    for (int j = from; j < to; ++j)
      text += lines[static_cast<std::size_t>(j)];
    return text;
  };
  std::string block = join(moved->first, moved->second);
  std::string rest = join(moved->second, after->second);
  if (rest.empty() || block.empty())
    return std::nullopt;
  if (rest.back() != '\n') { // the document ends without a line break
    rest += '\n';
    if (block.back() == '\n')
      block.pop_back();
  }
  Fix fix;
  fix.title = "Move `" + entry.text + "` below `" + last.text + "` (line " +
              std::to_string(last.range.start.line + 1) + ") so that it wins";
  fix.edit.range = {{moved->first, 0}, {after->second, 0}};
  if (static_cast<std::size_t>(after->second) >= lines.size() &&
      lines.back().back() != '\n') // the range ends at the end of the last line, not past it
    fix.edit.range.end = {after->second - 1, static_cast<int>(lines.back().size())};
  fix.edit.new_text = rest + block;
  fix.replacement = false;
  return fix;
}

} // namespace opscope::features::detail
