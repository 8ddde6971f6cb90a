// UTF-8 decoding that never fails: documents, names and labels hold whatever bytes their
// files hold, so each byte that does not start a well-formed sequence is one U+FFFD.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace opscope::support {

// Length of the well-formed UTF-8 sequence starting at `p` (Unicode table 3-7: no overlongs,
// no surrogates, nothing above U+10FFFF, every continuation byte checked), or 0 if the bytes
// there are not one.
inline std::size_t utf8_sequence_length(const unsigned char* p, const unsigned char* end) {
  auto continuation = [&](std::size_t i, unsigned char lo, unsigned char hi) {
    return p + i < end && p[i] >= lo && p[i] <= hi;
  };
  unsigned char lead = p[0];
  if (lead < 0x80)
    return 1;
  if (lead >= 0xC2 && lead <= 0xDF)
    return continuation(1, 0x80, 0xBF) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    unsigned char lo = lead == 0xE0 ? 0xA0 : 0x80;
    unsigned char hi = lead == 0xED ? 0x9F : 0xBF;
    return continuation(1, lo, hi) && continuation(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    unsigned char lo = lead == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = lead == 0xF4 ? 0x8F : 0xBF;
    return continuation(1, lo, hi) && continuation(2, 0x80, 0xBF) && continuation(3, 0x80, 0xBF)
               ? 4
               : 0;
  }
  return 0;
}

// One decoded character: its length in bytes (1..4) and code point. A byte that does not
// start a well-formed sequence decodes as U+FFFD of length 1, so the next byte is read again.
struct DecodedChar {
  char32_t code_point;
  std::size_t length;
};
DecodedChar decode_utf8(std::string_view text, std::size_t offset);

// The whole text as code points, each invalid byte one U+FFFD.
std::u32string decode_utf8(std::string_view text);

// Appends `code_point` as UTF-8; what UTF-8 cannot hold (a surrogate, above U+10FFFF)
// becomes U+FFFD, so the result is always valid.
void append_utf8(std::string& out, char32_t code_point);

// Number of UTF-16 code units `code_point` occupies (1 or 2).
inline std::size_t utf16_units(char32_t code_point) {
  return code_point >= 0x10000 ? 2 : 1;
}

} // namespace opscope::support
