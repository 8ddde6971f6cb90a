// Keeping a Python file's read when an edit is elsewhere: in a 5,000-line training script most
// keystrokes are in code that holds no config call, and a full parse of it costs milliseconds.
// The edit is provably elsewhere when its lines come after every config statement (text after
// a statement never changes how it is tokenised; a syntax error there may make tree-sitter
// wrap earlier statements in an error node, but their calls stay whole nodes, which the reader
// still finds), name nothing the reader looks for, and leave the same brackets and strings open
// at their end. An edit above a config, where a stray `#` or `(` can swallow it, reads the
// whole text again.
#include "python_edit.h"

#include "tree.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace opscope::config::detail {
namespace {

// Open brackets and the string being read, at some point of the text: what decides how the
// rest of the file is tokenised.
struct LexState {
  std::string brackets; // innermost last
  char quote = 0;       // inside a string opened with this quote
  bool triple = false;
  bool raw = false;
  int stray = 0; // closing brackets that close nothing (the parse recovers around them)
  bool operator==(const LexState&) const = default;
};

// Advances `state` over text[begin, end).
void lex(std::string_view text, std::size_t begin, std::size_t end, LexState& state) {
  for (std::size_t i = begin; i < end; ++i) {
    char c = text[i];
    if (state.quote) {
      if (c == '\\' && !state.raw) {
        ++i;
      } else if (c == '\n' && !state.triple) {
        state.quote = 0; // an unterminated single-line string ends with its line
      } else if (c == state.quote &&
                 (!state.triple || (i + 2 < end && text[i + 1] == c && text[i + 2] == c))) {
        i += state.triple ? 2 : 0;
        state.quote = 0;
      }
      continue;
    }
    if (c == '#') {
      while (i + 1 < end && text[i + 1] != '\n')
        ++i;
    } else if (c == '"' || c == '\'') {
      state.quote = c;
      state.triple = i + 2 < end && text[i + 1] == c && text[i + 2] == c;
      state.raw = i > begin && (text[i - 1] | 0x20) == 'r';
      i += state.triple ? 2 : 0;
    } else if (c == '(' || c == '[' || c == '{') {
      state.brackets += c;
    } else if (c == ')' || c == ']' || c == '}') {
      if (state.brackets.empty())
        ++state.stray;
      else
        state.brackets.pop_back();
    }
  }
}

// Words whose appearance or disappearance changes what the reader finds.
constexpr std::string_view kTriggers[] = {"coreai_opt", "Config",    "set_module", "only_for",
                                          "without",    "from_dict", "set_global", "\\"};

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool has_word(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos;
       at = text.find(word, at + 1)) {
    bool starts = at == 0 || !is_word_char(text[at - 1]);
    bool ends = at + word.size() >= text.size() || !is_word_char(text[at + word.size()]);
    if (starts && ends)
      return true;
  }
  return false;
}

// The variables setters are called on in the config statements (`cfg.set_module_name(...)`):
// rebinding one elsewhere may change its compressor.
std::vector<std::string_view> receivers(std::string_view statements) {
  std::vector<std::string_view> out;
  for (std::size_t dot = statements.find('.'); dot != std::string_view::npos;
       dot = statements.find('.', dot + 1)) {
    std::size_t begin = dot;
    while (begin > 0 && is_word_char(statements[begin - 1]))
      --begin;
    if (begin < dot)
      out.push_back(statements.substr(begin, dot - begin));
  }
  return out;
}

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
  // The edit as the differing middle of the two texts.
  std::size_t n = std::min(before.size(), after.size());
  std::size_t prefix = static_cast<std::size_t>(
      std::mismatch(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(n), after.begin())
          .first -
      before.begin());
  std::size_t suffix = 0;
  while (suffix < n - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
    ++suffix;
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
  std::string statements;
  for (const auto& [from, to] : document.config_lines) {
    if (to >= first)
      return false;
  }
  for (std::string_view word : kTriggers)
    if (old_lines.find(word) != std::string_view::npos ||
        new_lines.find(word) != std::string_view::npos)
      return false;
  if (!document.config_lines.empty()) {
    // The config statements' text, for the names setters are called on.
    SourceText source(before);
    for (const auto& [from, to] : document.config_lines) {
      std::size_t a = source.line_start(static_cast<std::size_t>(from));
      std::size_t b = static_cast<std::size_t>(to) + 1 < source.line_count()
                          ? source.line_start(static_cast<std::size_t>(to) + 1)
                          : before.size();
      for (std::string_view name : receivers(before.substr(a, b - a)))
        if (has_word(old_lines, name) || has_word(new_lines, name))
          return false;
    }
  }
  // The same brackets and string open after the lines as before the edit.
  LexState at_begin;
  lex(before, 0, begin, at_begin);
  LexState old_state = at_begin, new_state = at_begin;
  lex(before, begin, old_end, old_state);
  lex(after, begin, new_end, new_state);
  // Inside a docstring the edit may stay inside it; an open single-line string is being typed.
  if (!(old_state == new_state) || (at_begin.quote && !at_begin.triple) ||
      (old_state.quote && !old_state.triple))
    return false;

  // Nothing read lies on the edited lines: what follows them moves by whole lines.
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
