// Writing JSON text directly, for replies on the typing path: a completion list
// built as a DOM (one heap node per field) and then dumped cost most of a
// request. The output is what nlohmann's dump() writes for the same value
// (keys in sorted order, no spaces), so clients and transcripts see no change.
#pragma once

#include "opscope/json/json_string.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace opscope::protocol {

// A JSON value already written out; sent as is.
struct JsonText {
  std::string text;
};

// Appends `text` as a JSON string literal (quotes included), escaped as nlohmann does with
// ensure_ascii off; invalid UTF-8 bytes become U+FFFD. The same writer as the index file's.
using json::append_json_string;

// Small helpers for writing objects by hand, keys in the order given.
class JsonObjectWriter {
public:
  explicit JsonObjectWriter(std::string& out) : out_(out) { out_ += '{'; }
  JsonObjectWriter(const JsonObjectWriter&) = delete;
  JsonObjectWriter& operator=(const JsonObjectWriter&) = delete;
  ~JsonObjectWriter() { out_ += '}'; }

  // Writes `"key":` and leaves the value to the caller. Keys are written as
  // they are: pass literals that need no escaping.
  std::string& key(std::string_view name);
  void field(std::string_view name, std::string_view value) {
    append_json_string(key(name), value);
  }
  // Without this overload a string literal would convert to bool.
  void field(std::string_view name, const char* value) { append_json_string(key(name), value); }
  void field(std::string_view name, std::int64_t value) {
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    key(name).append(digits, end);
  }
  void field(std::string_view name, bool value) { key(name) += value ? "true" : "false"; }

private:
  std::string& out_;
  bool first_ = true;
};

} // namespace opscope::protocol
