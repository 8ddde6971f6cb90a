// A tiny re-implementation of the parts of the `rich` library that coreai-opt's
// format_summary() goes through: styled text, rich's word wrapping (Text.wrap with the
// default "fold" overflow) and ANSI rendering. The summary must be character-identical
// to coreai-opt's, including where rich breaks a long label at the console width.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::format::detail {

// The styles format_summary uses, with rich's SGR codes.
enum class Style : std::uint8_t { None, BoldCyan, Yellow, Green, Magenta, Dim };

// Text with one style per code point (rich's spans, flattened).
class StyledText {
public:
  void append(std::string_view utf8, Style style = Style::None);
  const std::u32string& chars() const { return chars_; }
  const std::vector<Style>& styles() const { return styles_; }

private:
  std::u32string chars_;
  std::vector<Style> styles_;
};

// One output line: a slice of a StyledText.
struct StyledLine {
  std::u32string chars;
  std::vector<Style> styles;
};

// rich's Text.wrap(width) with justify "default" and overflow "fold": splits on "\n",
// breaks words at `width` cells, keeps trailing spaces that fit, folds words wider than
// a line.
std::vector<StyledLine> wrap(const StyledText& text, int width);

// The line as rich prints it: plain, or with `\x1b[<sgr>m...\x1b[0m` around each styled run.
std::string render(const StyledLine& line, bool color);

// Terminal cells a code point takes (wide East Asian characters take two).
int cell_width(char32_t c);
std::string to_utf8(std::u32string_view text);

} // namespace opscope::format::detail
