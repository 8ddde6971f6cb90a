#include "opscope/protocol/json_depth.h"

#include <algorithm>
#include <cstring>

namespace opscope::protocol {

std::size_t json_nesting_depth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    char c = *p++;
    switch (c) {
    case '[':
    case '{':
      deepest = std::max(deepest, ++depth);
      break;
    case ']':
    case '}':
      depth -= depth > 0;
      break;
    case '"':
      // Skip the string literal; an escaped quote does not end it.
      while (p < end) {
        const char* stop = static_cast<const char*>(std::memchr(p, '"', end - p));
        if (!stop) {
          p = end;
          break;
        }
        std::size_t backslashes = 0;
        for (const char* q = stop; q > p && q[-1] == '\\'; --q)
          ++backslashes;
        p = stop + 1;
        if (backslashes % 2 == 0)
          break;
      }
      break;
    default:
      break;
    }
  }
  return deepest;
}

} // namespace opscope::protocol
