#include "rich_text.h"

#include "opscope/support/utf8.h"

#include <algorithm>

namespace opscope::format::detail {
namespace {

// Python's str.isspace() for the characters that occur in labels.
bool is_space(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F) || c == 0x85 ||
         c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

int cells(std::u32string_view text) {
  int total = 0;
  for (char32_t c : text)
    total += cell_width(c);
  return total;
}

std::u32string_view rstrip(std::u32string_view text) {
  size_t end = text.size();
  while (end > 0 && is_space(text[end - 1]))
    --end;
  return text.substr(0, end);
}

struct Word {
  size_t start;
  size_t end;
};

// rich/_wrap.py words(): successive matches of `\s*\S+\s*` from the start.
std::vector<Word> words(std::u32string_view text) {
  std::vector<Word> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t i = pos;
    while (i < text.size() && is_space(text[i]))
      ++i;
    if (i == text.size())
      break; // only whitespace left: no match
    while (i < text.size() && !is_space(text[i]))
      ++i;
    while (i < text.size() && is_space(text[i]))
      ++i;
    out.push_back({pos, i});
    pos = i;
  }
  return out;
}

// rich.cells.chop_cells(): pieces of at most `width` cells.
std::vector<std::u32string_view> chop_cells(std::u32string_view text, int width) {
  std::vector<std::u32string_view> lines;
  size_t line_offset = 0;
  int line_size = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    int w = cell_width(text[i]);
    if (line_size + w > width) {
      lines.push_back(text.substr(line_offset, i - line_offset));
      line_offset = i;
      line_size = 0;
    }
    line_size += w;
  }
  if (line_size)
    lines.push_back(text.substr(line_offset));
  return lines;
}

// rich/_wrap.py divide_line() with fold=True: offsets at which to break.
std::vector<size_t> divide_line(std::u32string_view text, int width) {
  std::vector<size_t> breaks;
  int cell_offset = 0;
  for (const Word& w : words(text)) {
    size_t start = w.start;
    std::u32string_view word = text.substr(w.start, w.end - w.start);
    int word_length = cells(rstrip(word));
    int remaining_space = width - cell_offset;
    if (remaining_space >= word_length) {
      cell_offset += cells(word);
    } else if (word_length > width) {
      auto folded = chop_cells(word, width);
      for (size_t k = 0; k < folded.size(); ++k) {
        if (start)
          breaks.push_back(start);
        if (k + 1 == folded.size())
          cell_offset = cells(folded[k]);
        else
          start += folded[k].size();
      }
    } else if (cell_offset && start) {
      breaks.push_back(start);
      cell_offset = cells(word);
    }
  }
  return breaks;
}

const char* sgr(Style style) {
  switch (style) {
  case Style::BoldCyan:
    return "1;36";
  case Style::Yellow:
    return "33";
  case Style::Green:
    return "32";
  case Style::Magenta:
    return "35";
  case Style::Dim:
    return "2";
  case Style::None:
    break;
  }
  return "";
}

} // namespace

int cell_width(char32_t c) {
  if (c < 0x300)
    return 1;
  if ((c >= 0x300 && c <= 0x36F) || (c >= 0x200B && c <= 0x200F)) // combining, zero-width
    return 0;
  if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) ||
      (c >= 0x3041 && c <= 0x33FF) || (c >= 0x3400 && c <= 0x4DBF) ||
      (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
      (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
      (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
      (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
      (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
    return 2;
  return 1;
}

std::string to_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text)
    support::append_utf8(out, c);
  return out;
}

void StyledText::append(std::string_view utf8, Style style) {
  std::u32string decoded = support::decode_utf8(utf8);
  chars_ += decoded;
  styles_.insert(styles_.end(), decoded.size(), style);
}

std::vector<StyledLine> wrap(const StyledText& text, int width) {
  width = std::max(width, 1);
  std::vector<StyledLine> lines;
  const std::u32string& all = text.chars();
  size_t line_start = 0;
  while (true) {
    size_t line_end = all.find(U'\n', line_start);
    if (line_end == std::u32string::npos)
      line_end = all.size();
    std::u32string_view line(all.data() + line_start, line_end - line_start);
    std::vector<size_t> cuts = divide_line(line, width);
    cuts.insert(cuts.begin(), 0);
    cuts.push_back(line.size());
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
      size_t begin = cuts[k], end = cuts[k + 1];
      // rstrip_end(width): drop trailing whitespace beyond `width` code points.
      if (end - begin > static_cast<size_t>(width)) {
        size_t excess = end - begin - width;
        size_t trailing = 0;
        while (trailing < end - begin && is_space(line[end - 1 - trailing]))
          ++trailing;
        end -= std::min(trailing, excess);
      }
      // truncate(width): crop to `width` cells.
      int used = 0;
      size_t fit = begin;
      while (fit < end && used + cell_width(line[fit]) <= width)
        used += cell_width(line[fit++]);
      end = fit;
      StyledLine out;
      out.chars.assign(line.substr(begin, end - begin));
      auto first_style = text.styles().begin() + static_cast<long>(line_start + begin);
      out.styles.assign(first_style, first_style + static_cast<long>(end - begin));
      lines.push_back(std::move(out));
    }
    if (line_end == all.size())
      break;
    line_start = line_end + 1;
  }
  return lines;
}

std::string render(const StyledLine& line, bool color) {
  if (!color)
    return to_utf8(line.chars);
  std::string out;
  size_t i = 0;
  while (i < line.chars.size()) {
    size_t j = i;
    while (j < line.chars.size() && line.styles[j] == line.styles[i])
      ++j;
    std::string run = to_utf8(std::u32string_view(line.chars).substr(i, j - i));
    if (line.styles[i] == Style::None)
      out += run;
    else
      out += std::string("\x1b[") + sgr(line.styles[i]) + "m" + run + "\x1b[0m";
    i = j;
  }
  return out;
}

} // namespace opscope::format::detail
