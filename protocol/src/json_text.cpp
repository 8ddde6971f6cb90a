#include "opscope/protocol/json_text.h"

#include "opscope/protocol/utf8.h"

namespace opscope::protocol {
namespace {

bool needs_care(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
}

void append_escaped_control(std::string& out, unsigned char c) {
  switch (c) {
  case '\b':
    out += "\\b";
    return;
  case '\t':
    out += "\\t";
    return;
  case '\n':
    out += "\\n";
    return;
  case '\f':
    out += "\\f";
    return;
  case '\r':
    out += "\\r";
    return;
  default:
    break;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\u00";
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

} // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t plain_from = 0; // a run of bytes copied as they are
  for (std::size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (!needs_care(c)) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      DecodedChar decoded = decode_utf8(text, i);
      if (decoded.code_point != 0xFFFD || decoded.length != 1) {
        i += decoded.length; // valid: stays in the plain run
        continue;
      }
    }
    out.append(text.substr(plain_from, i - plain_from));
    if (c >= 0x80)
      out += "\xEF\xBF\xBD";
    else if (c == '"' || c == '\\')
      (out += '\\') += static_cast<char>(c);
    else
      append_escaped_control(out, c);
    plain_from = ++i;
  }
  out.append(text.substr(plain_from));
  out += '"';
}

std::string& JsonObjectWriter::key(std::string_view name) {
  if (!first_)
    out_ += ',';
  first_ = false;
  out_ += '"'; // keys are the writer's own literals: nothing to escape
  out_ += name;
  out_ += "\":";
  return out_;
}

} // namespace opscope::protocol
