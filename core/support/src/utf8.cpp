#include "opscope/support/utf8.h"

namespace opscope::support {

DecodedChar decode_utf8(std::string_view text, std::size_t offset) {
  auto p = reinterpret_cast<const unsigned char*>(text.data()) + offset;
  auto end = reinterpret_cast<const unsigned char*>(text.data()) + text.size();
  switch (utf8_sequence_length(p, end)) {
  case 1:
    return {p[0], 1};
  case 2:
    return {static_cast<char32_t>((p[0] & 0x1F) << 6 | (p[1] & 0x3F)), 2};
  case 3:
    return {static_cast<char32_t>((p[0] & 0x0F) << 12 | (p[1] & 0x3F) << 6 | (p[2] & 0x3F)), 3};
  case 4:
    return {static_cast<char32_t>((p[0] & 0x07) << 18 | (p[1] & 0x3F) << 12 | (p[2] & 0x3F) << 6 |
                                  (p[3] & 0x3F)),
            4};
  default:
    return {0xFFFD, 1};
  }
}

std::u32string decode_utf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    DecodedChar c = decode_utf8(text, i);
    out.push_back(c.code_point);
    i += c.length;
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if ((cp >= 0xD800 && cp < 0xE000) || cp > 0x10FFFF)
    cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

} // namespace opscope::support
