// LSP positions are (line, character) where `character` counts UTF-16 code
// units by default, or bytes when the client negotiates UTF-8. Documents are
// stored as UTF-8 bytes; these functions convert between the two.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::protocol {

enum class PositionEncoding { Utf16, Utf8, Utf32 };

const char* to_string(PositionEncoding encoding);
// The encoding the server uses given what the client offers (in preference
// order, from `general.positionEncodings`): UTF-8 when offered, else UTF-16.
PositionEncoding negotiate_position_encoding(const std::vector<std::string>& offered);

struct Position {
  int line = 0;
  int character = 0;
  bool operator==(const Position&) const = default;
  auto operator<=>(const Position&) const = default;
};

// Byte offset of `position` in `text`. Out-of-range characters clamp to the end
// of the line, out-of-range lines to the end of the text (as editors expect
// after racing edits); a position inside a surrogate pair rounds up.
std::size_t offset_at(std::string_view text, Position position, PositionEncoding encoding);

// Position of byte `offset` (clamped to the text). An offset inside a UTF-8
// sequence maps to the start of that character.
Position position_at(std::string_view text, std::size_t offset, PositionEncoding encoding);

// Line starts of one text, for repeated conversions on a large document
// (O(log lines + line length) each). Holds a view: keep the text alive.
class LineTable {
public:
  explicit LineTable(std::string_view text);
  // After the old text's bytes [begin, end) became `inserted` bytes, giving `text`: moves the
  // starts past the edit and finds the ones inside it, instead of reading the whole text again
  // (a 50,000-key config has 100,000 lines, and the editor sends every keystroke).
  void edited(std::size_t begin, std::size_t end, std::size_t inserted, std::string_view text);
  std::size_t offset_at(Position position, PositionEncoding encoding) const;
  Position position_at(std::size_t offset, PositionEncoding encoding) const;
  int line_count() const { return static_cast<int>(starts_.size()); }
  std::string_view line(int line) const; // without its line break

private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

} // namespace opscope::protocol
