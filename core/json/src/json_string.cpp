#include "opscope/json/json_string.h"

#include "opscope/support/utf8.h"
#include "plain_text.h"

namespace opscope::json {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  const auto* run = p; // start of the bytes that need no escaping
  auto take_run = [&] { out.append(reinterpret_cast<const char*>(run), p - run); };
  out.push_back('"');
  while (p < end) {
    p = reinterpret_cast<const unsigned char*>(
        skip_plain_ascii(reinterpret_cast<const char*>(p), reinterpret_cast<const char*>(end)));
    if (p == end)
      break;
    unsigned char c = *p;
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++p;
      continue;
    }
    if (c >= 0x80) {
      if (std::size_t length = support::utf8_sequence_length(p, end)) {
        p += length;
        continue;
      }
      take_run();
      out.append("\xEF\xBF\xBD"); // U+FFFD REPLACEMENT CHARACTER
      run = ++p;
      continue;
    }
    take_run();
    switch (c) {
    case '"':
      out.append("\\\"");
      break;
    case '\\':
      out.append("\\\\");
      break;
    case '\b':
      out.append("\\b");
      break;
    case '\f':
      out.append("\\f");
      break;
    case '\n':
      out.append("\\n");
      break;
    case '\r':
      out.append("\\r");
      break;
    case '\t':
      out.append("\\t");
      break;
    default:
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
    run = ++p;
  }
  take_run();
  out.push_back('"');
}

} // namespace opscope::json
