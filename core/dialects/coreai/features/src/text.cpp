#include "text.h"

#include "matching.h"
#include "opscope/index/nearest.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_set>

namespace opscope::features::detail {
namespace {

bool yaml_plain_safe(const std::string& s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.back() == ':')
    return false;
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos)
    return false;
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos)
    return false;
  static const std::set<std::string> reserved = {"null", "Null", "NULL",  "~",     "true",
                                                 "True", "TRUE", "false", "False", "FALSE",
                                                 "yes",  "no",   "on",    "off",   "<<"};
  return !reserved.count(s) && s.find('\n') == std::string::npos;
}

std::string double_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

// A Python string literal's quotes and body (its prefix, if any, is kept by the caller), or
// a keyword argument's name as it is (the fix for an unknown field).
std::string python_string(const std::string& s, char quote, bool raw) {
  bool identifier = !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
                    std::all_of(s.begin(), s.end(), [](char c) {
                      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                    });
  if (!quote && identifier)
    return s;
  if (!quote)
    quote = '"';
  std::string out(1, quote);
  for (char c : s) {
    if (!raw && (c == quote || c == '\\'))
      out += '\\';
    if (!raw && c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + quote;
}

// The literal start of a regex (escapes resolved) and where its regex tail begins.
std::pair<std::string, std::size_t> literal_stem(const std::string& p) {
  std::string stem;
  std::size_t i = 0;
  while (i < p.size()) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size() && !std::isalnum(static_cast<unsigned char>(p[i + 1]))) {
      stem += p[i + 1];
      i += 2;
      continue;
    }
    if (std::string_view(".^$|?*+()[]{}\\").find(c) != std::string_view::npos)
      break;
    stem += c;
    ++i;
  }
  // A quantifier binds to the last literal character, which is then not part of the stem.
  if (i < p.size() && std::string_view("?*{").find(p[i]) != std::string_view::npos &&
      !stem.empty()) {
    stem.pop_back();
    i = i >= 2 && p[i - 2] == '\\' ? i - 2 : i - 1;
  }
  return {stem, i};
}

} // namespace

std::string render_key(const std::string& value, config::Format format, char quote, bool raw) {
  if (format == config::Format::Python)
    return python_string(value, quote, raw);
  if (format == config::Format::Json || quote == '"')
    return double_quoted(value);
  if (quote == '\'' || !yaml_plain_safe(value)) {
    std::string out = "'";
    for (char c : value) {
      out += c;
      if (c == '\'')
        out += '\'';
    }
    return out + "'";
  }
  return value;
}

std::vector<std::string> nearest(const std::string& target,
                                 const std::vector<std::string>& candidates, std::size_t count) {
  return index::nearest_names(target, candidates, count);
}

std::vector<std::string> suggest_patterns(const std::string& pattern,
                                          const std::vector<std::string>& names,
                                          std::size_t count) {
  auto [stem, tail_at] = literal_stem(pattern);
  if (tail_at >= pattern.size()) {
    std::vector<std::string> out;
    for (const std::string& name : nearest(stem, names, count))
      out.push_back(escape_regex(name));
    return out;
  }
  std::string tail = pattern.substr(tail_at);
  // Prefixes of real names at separator boundaries, with and without the separator.
  // Only prefixes whose length is within the plausible edit distance can be suggested:
  // skipping the rest keeps this fast on models with many thousands of modules.
  const std::size_t slack = std::max<std::size_t>(2, stem.size() / 3);
  const std::size_t min_len = stem.size() > slack ? stem.size() - slack : 1;
  const std::size_t max_len = stem.size() + slack;
  std::vector<std::string> prefixes;
  std::unordered_set<std::string_view> seen; // views into `names`, which outlive it
  for (const std::string& name : names) {
    std::string_view view(name);
    for (std::size_t i = min_len; i <= std::min(name.size(), max_len); ++i) {
      bool boundary = i == name.size() || name[i] == '.' || name[i] == '_';
      if (boundary && seen.insert(view.substr(0, i)).second)
        prefixes.push_back(name.substr(0, i));
      if (i < name.size() && (name[i] == '.' || name[i] == '_') &&
          seen.insert(view.substr(0, i + 1)).second)
        prefixes.push_back(name.substr(0, i + 1));
    }
  }
  // A candidate is a real name's prefix, literally, then the tail: only names with that
  // prefix can match it (unless the tail has a top-level `|`), so test just those.
  std::vector<std::string_view> sorted(names.begin(), names.end());
  std::sort(sorted.begin(), sorted.end());
  const bool prefix_bounds_matches = tail.find('|') == std::string::npos;
  std::vector<std::string> out;
  for (const std::string& prefix : nearest(stem, prefixes, prefixes.size())) {
    if (out.size() >= count)
      break;
    std::string candidate = escape_regex(prefix) + tail;
    CompiledPattern c = compile_pattern(candidate);
    if (!c.re)
      continue;
    auto first = sorted.begin();
    auto last = sorted.end();
    if (prefix_bounds_matches) {
      first = std::lower_bound(sorted.begin(), sorted.end(), std::string_view(prefix));
      last = std::find_if(first, sorted.end(), [&](std::string_view n) {
        return n.compare(0, prefix.size(), prefix) != 0;
      });
    }
    bool any = std::any_of(first, last, [&](std::string_view n) { return c.re->matches(n); });
    if (any && candidate != pattern)
      out.push_back(candidate);
  }
  if (out.empty()) // the tail itself is the problem: fall back to real names
    for (const std::string& name : nearest(stem, names, count))
      out.push_back(escape_regex(name));
  return out;
}

std::optional<SourceLocation> op_location(const index::Op& op) {
  // The user's own line, as the summary shows it, never PyTorch's module code.
  const index::SourceFrame* frame = index::user_frame(op);
  if (!frame)
    return std::nullopt;
  return SourceLocation{frame->file, frame->line};
}

const config::PatternKey* key_at(const config::ConfigDocument& document, config::Position cursor) {
  for (const config::PatternKey& key : document.keys)
    if (key.range.contains(cursor))
      return &key;
  return nullptr;
}

} // namespace opscope::features::detail
