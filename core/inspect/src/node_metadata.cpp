#include "opscope/inspect/node_metadata.h"

#include <algorithm>

namespace opscope::inspect {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Python's str.strip() for the ASCII whitespace a stack trace contains.
std::string_view strip(std::string_view s) {
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
           (c >= '\x1c' && c <= '\x1f');
  };
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

// Python's str.splitlines() for the ASCII line boundaries.
std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\n' || c == '\r' || c == '\v' || c == '\f' || (c >= '\x1c' && c <= '\x1e')) {
      lines.push_back(s.substr(start, i - start));
      if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n')
        ++i;
      start = i + 1;
    }
  }
  if (start < s.size())
    lines.push_back(s.substr(start));
  return lines;
}

// Length of a leading `L['self'].`, `L['fn'].` or `L['args'][N].`, else 0.
std::size_t export_prefix_length(std::string_view p) {
  for (std::string_view fixed : {"L['self'].", "L['fn']."})
    if (starts_with(p, fixed))
      return fixed.size();
  std::string_view args = "L['args'][";
  if (!starts_with(p, args))
    return 0;
  std::size_t i = args.size();
  std::size_t digits = i;
  while (i < p.size() && is_digit(p[i]))
    ++i;
  if (i == digits || p.substr(i, 2) != "].")
    return 0;
  return i + 2;
}

// `File "(.+)", line (\d+), in (.+)$` on a stripped line.
bool parse_frame_header(std::string_view line, index::SourceFrame& frame) {
  std::string_view lead = "File \"";
  if (!starts_with(line, lead))
    return false;
  std::string_view marker = "\", line ";
  // (.+) is greedy: the file name ends at the last marker that fits.
  std::size_t search_from = line.size();
  while (true) {
    std::size_t pos = line.rfind(marker, search_from);
    if (pos == std::string_view::npos || pos < lead.size() + 1)
      return false;
    std::size_t i = pos + marker.size();
    std::size_t digits = i;
    long value = 0;
    while (i < line.size() && is_digit(line[i])) {
      value = std::min(value * 10 + (line[i] - '0'), 1000000000L);
      ++i;
    }
    std::string_view in = ", in ";
    if (i > digits && line.substr(i, in.size()) == in && i + in.size() < line.size()) {
      frame.file = std::string(line.substr(lead.size(), pos - lead.size()));
      frame.line = static_cast<int>(value);
      frame.function = std::string(line.substr(i + in.size()));
      return true;
    }
    search_from = pos - 1;
  }
}

} // namespace

std::string normalize_module_fqn(std::string_view path) {
  path.remove_prefix(export_prefix_length(path));

  // _modules['X'] and [N] become .X and .N, scanning left to right.
  std::string dotted;
  dotted.reserve(path.size());
  std::size_t i = 0;
  while (i < path.size()) {
    if (starts_with(path.substr(i), "_modules['")) {
      std::size_t name_start = i + 10;
      std::size_t quote = path.find('\'', name_start);
      if (quote != std::string_view::npos && quote > name_start && quote + 1 < path.size() &&
          path[quote + 1] == ']') {
        dotted += '.';
        dotted.append(path.substr(name_start, quote - name_start));
        i = quote + 2;
        continue;
      }
    }
    if (path[i] == '[') {
      std::size_t j = i + 1;
      while (j < path.size() && is_digit(path[j]))
        ++j;
      if (j > i + 1 && j < path.size() && path[j] == ']') {
        dotted += '.';
        dotted.append(path.substr(i + 1, j - i - 1));
        i = j + 1;
        continue;
      }
    }
    dotted += path[i++];
  }

  // Collapse runs of dots and strip them from both ends.
  std::string out;
  out.reserve(dotted.size());
  for (char c : dotted) {
    if (c == '.' && (out.empty() || out.back() == '.'))
      continue;
    out += c;
  }
  while (!out.empty() && out.back() == '.')
    out.pop_back();
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_nn_module_stack(std::string_view text) {
  std::vector<std::string> keys;
  std::vector<std::pair<std::string, std::string>> entries;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view item = text.substr(start, end - start);
    // metadata_split: commas at bracket depth 0 separate key, path, type.
    std::vector<std::string_view> parts;
    int depth = 0;
    std::size_t part_start = 0;
    for (std::size_t i = 0; i < item.size(); ++i) {
      char c = item[i];
      if (c == '[' || c == '(')
        ++depth;
      else if (c == ']' || c == ')')
        --depth;
      else if (c == ',' && depth == 0) {
        parts.push_back(item.substr(part_start, i - part_start));
        part_start = i + 1;
      }
    }
    parts.push_back(item.substr(part_start));
    if (parts.size() == 3) {
      std::string key(parts[0]);
      bool replaced = false;
      for (std::size_t k = 0; k < keys.size(); ++k)
        if (keys[k] == key) {
          entries[k] = {std::string(parts[1]), std::string(parts[2])};
          replaced = true;
          break;
        }
      if (!replaced) {
        keys.push_back(std::move(key));
        entries.emplace_back(std::string(parts[1]), std::string(parts[2]));
      }
    }
    start = end + 1;
  }
  return entries;
}

std::vector<index::ModuleContext> module_stack_of(std::string_view nn_module_stack) {
  std::vector<index::ModuleContext> stack;
  if (nn_module_stack.empty())
    return stack;
  for (auto& [path, type] : parse_nn_module_stack(nn_module_stack))
    stack.push_back({normalize_module_fqn(path), std::move(type)});
  return stack;
}

std::vector<index::SourceFrame> parse_stack_trace(std::string_view stack_trace) {
  std::vector<index::SourceFrame> frames;
  if (stack_trace.empty())
    return frames;
  auto lines = split_lines(strip(stack_trace));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    index::SourceFrame frame;
    if (!parse_frame_header(strip(lines[i]), frame))
      continue;
    if (i + 1 < lines.size() && !starts_with(strip(lines[i + 1]), "File ")) {
      frame.code = std::string(strip(lines[i + 1]));
      ++i;
    }
    if (frame.function == "forward")
      frames.push_back(std::move(frame));
  }
  return frames;
}

std::string op_type_of_torch_fn(std::string_view torch_fn) {
  // `_, torch_fn = meta["torch_fn"]` needs exactly two ';'-separated parts.
  auto semi = torch_fn.find(';');
  if (semi == std::string_view::npos || torch_fn.find(';', semi + 1) != std::string_view::npos)
    return {};
  std::string_view fn = torch_fn.substr(semi + 1);
  auto dot = fn.find('.');
  if (dot == std::string_view::npos)
    return {};
  auto next = fn.find('.', dot + 1);
  return std::string(fn.substr(dot + 1, next == std::string_view::npos ? fn.npos : next - dot - 1));
}

} // namespace opscope::inspect
