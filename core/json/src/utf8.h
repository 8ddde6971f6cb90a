// UTF-8 well-formedness for the JSON string writer: what is not well formed becomes U+FFFD.
#pragma once

#include <cstddef>

namespace opscope::json::utf8 {

// Length of the well-formed UTF-8 sequence starting at `p` (Unicode table 3-7: no overlongs,
// no surrogates, nothing above U+10FFFF), or 0 if the bytes there are not one.
inline std::size_t sequence_length(const unsigned char* p, const unsigned char* end) {
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

} // namespace opscope::json::utf8
