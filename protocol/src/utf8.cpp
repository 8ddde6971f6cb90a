#include "opscope/protocol/utf8.h"

#include "opscope/support/utf8.h"

namespace opscope::protocol {
namespace {

bool is_invalid_byte(std::string_view text, std::size_t i, const support::DecodedChar& c) {
  return c.code_point == 0xFFFD && c.length == 1 && static_cast<unsigned char>(text[i]) >= 0x80;
}

} // namespace

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    support::DecodedChar c = support::decode_utf8(text, i);
    if (is_invalid_byte(text, i, c))
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
    support::DecodedChar c = support::decode_utf8(text, i);
    if (is_invalid_byte(text, i, c))
      out += "\xEF\xBF\xBD";
    else
      out.append(text.substr(i, c.length));
    i += c.length;
  }
  return out;
}

} // namespace opscope::protocol
