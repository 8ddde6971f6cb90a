// Finding the end of plain text in a JSON string: names are mostly plain ASCII, and scanning
// them is most of the work of writing them.
#pragma once

#include <cstdint>
#include <cstring>

namespace opscope::json {

// Skips 8 bytes at a time while none of them is '"', '\\', a control character or non-ASCII.
// Stops at or before the first such byte, leaving the exact position to a byte loop.
inline const char* skip_plain_ascii(const char* p, const char* end) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  auto has_zero_byte = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighBits; };
  while (end - p >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    std::uint64_t special = has_zero_byte(word ^ (kOnes * '"')) |
                            has_zero_byte(word ^ (kOnes * '\\')) |
                            ((word - kOnes * 0x20) & ~word & kHighBits) | (word & kHighBits);
    if (special)
      break;
    p += 8;
  }
  return p;
}

} // namespace opscope::json
