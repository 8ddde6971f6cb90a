#include "json_writer.h"

#include "opscope/json/json_string.h"

#include <charconv>

namespace opscope::index {

JsonWriter::JsonWriter(std::string& buffer, std::ostream* sink) : buffer_(buffer), sink_(sink) {
  if (sink_)
    buffer_.reserve(kChunk + kChunk / 4);
}

void JsonWriter::string(std::string_view text) {
  json::append_json_string(buffer_, text);
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
