#include "json_writer.h"

#include "json_plain_text.h"
#include "utf8.h"

#include <charconv>

namespace opscope::index {

JsonWriter::JsonWriter(std::string& buffer, std::ostream* sink) : buffer_(buffer), sink_(sink) {
  if (sink_)
    buffer_.reserve(kChunk + kChunk / 4);
}

void JsonWriter::string(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  const auto* run = p; // start of the bytes that need no escaping
  auto take_run = [&] { buffer_.append(reinterpret_cast<const char*>(run), p - run); };
  buffer_.push_back('"');
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
      if (std::size_t length = utf8::sequence_length(p, end)) {
        p += length;
        continue;
      }
      take_run();
      buffer_.append("\xEF\xBF\xBD"); // U+FFFD REPLACEMENT CHARACTER
      run = ++p;
      continue;
    }
    take_run();
    switch (c) {
    case '"':
      buffer_.append("\\\"");
      break;
    case '\\':
      buffer_.append("\\\\");
      break;
    case '\b':
      buffer_.append("\\b");
      break;
    case '\f':
      buffer_.append("\\f");
      break;
    case '\n':
      buffer_.append("\\n");
      break;
    case '\r':
      buffer_.append("\\r");
      break;
    case '\t':
      buffer_.append("\\t");
      break;
    default:
      buffer_.append("\\u00");
      buffer_.push_back(kHex[c >> 4]);
      buffer_.push_back(kHex[c & 0xF]);
    }
    run = ++p;
  }
  take_run();
  buffer_.push_back('"');
}

void JsonWriter::integer(long long value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  buffer_.append(digits, end);
}

void JsonWriter::flush() {
  if (!sink_ || buffer_.empty())
    return;
  sink_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

} // namespace opscope::index
