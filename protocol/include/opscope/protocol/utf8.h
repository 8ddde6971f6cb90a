// UTF-8 decoding that never fails: editors send whatever bytes the file holds,
// so every invalid byte is one replacement character rather than an error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace opscope::protocol {

// One decoded character: its length in bytes (1..4) and code point.
// An invalid or truncated sequence decodes as U+FFFD of length 1.
struct DecodedChar {
  char32_t code_point;
  std::size_t length;
};
DecodedChar decode_utf8(std::string_view text, std::size_t offset);

// Number of UTF-16 code units the character at `offset` occupies (1 or 2).
inline std::size_t utf16_units(char32_t code_point) {
  return code_point >= 0x10000 ? 2 : 1;
}

bool is_valid_utf8(std::string_view text);
// Replaces each invalid byte with U+FFFD so JSON libraries accept the text.
std::string sanitize_utf8(std::string_view text);

} // namespace opscope::protocol
