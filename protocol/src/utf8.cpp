#include "opscope/protocol/utf8.h"

namespace opscope::protocol {

DecodedChar decode_utf8(std::string_view text, std::size_t offset) {
  constexpr DecodedChar kInvalid{0xFFFD, 1};
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(offset);
  if (lead < 0x80)
    return {lead, 1};
  std::size_t length;
  char32_t code_point;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    code_point = lead & 0x07;
  } else {
    return kInvalid;
  }
  if (offset + length > text.size())
    return kInvalid;
  for (std::size_t i = 1; i < length; ++i) {
    unsigned char next = byte(offset + i);
    if ((next & 0xC0) != 0x80)
      return kInvalid;
    code_point = (code_point << 6) | (next & 0x3F);
  }
  // Overlong forms, surrogates and out-of-range values are invalid too.
  static constexpr char32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kMinimum[length] || code_point > 0x10FFFF ||
      (code_point >= 0xD800 && code_point <= 0xDFFF))
    return kInvalid;
  return {code_point, length};
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    DecodedChar c = decode_utf8(text, i);
    if (c.code_point == 0xFFFD && c.length == 1 && static_cast<unsigned char>(text[i]) >= 0x80)
      return false;
    i += c.length;
  }
  return true;
}

std::string sanitize_utf8(std::string_view text) {
  if (is_valid_utf8(text))
    return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size();) {
    DecodedChar c = decode_utf8(text, i);
    if (c.code_point == 0xFFFD && c.length == 1 && static_cast<unsigned char>(text[i]) >= 0x80)
      out += "\xEF\xBF\xBD";
    else
      out.append(text.substr(i, c.length));
    i += c.length;
  }
  return out;
}

} // namespace opscope::protocol
