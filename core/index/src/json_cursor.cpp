#include "json_cursor.h"

#include "json_plain_text.h"
#include "utf8.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace opscope::index {
namespace {

// Deeper than any index file needs; bounds the recursion of skip_value on hostile input.
constexpr int kMaxDepth = 256;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, unsigned code_point) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

} // namespace

void JsonCursor::syntax_error(const std::string& what) const {
  throw JsonReadError(JsonReadError::Kind::Syntax, offset(), what);
}

void JsonCursor::shape_error(const std::string& what) const {
  throw JsonReadError(JsonReadError::Kind::Shape, offset(), what);
}

void JsonCursor::wrong_value(const char* expected) {
  char c = peek();
  if (c == '{' || c == '[' || c == '"' || c == 't' || c == 'f' || c == 'n' || c == '-' ||
      is_digit(c))
    shape_error(std::string("expected ") + expected);
  syntax_error(c == '\0' ? std::string("unexpected end of file") : "expected a JSON value");
}

void JsonCursor::open(char bracket, const char* expected) {
  if (peek() != bracket)
    wrong_value(expected);
  ++p_;
}

void JsonCursor::string(std::string& out) {
  if (peek() != '"')
    wrong_value("a string");
  ++p_;
  out.clear();
  string_body(out);
}

std::string_view JsonCursor::key_view(std::string& escaped) {
  const char* start = ++p_; // past the opening quote
  const char* q = start;
  while (q < end_ && *q != '"' && *q != '\\' && static_cast<unsigned char>(*q) >= 0x20 &&
         static_cast<unsigned char>(*q) < 0x80)
    ++q;
  if (q < end_ && *q == '"') {
    p_ = q + 1;
    return {start, static_cast<std::size_t>(q - start)};
  }
  escaped.clear();
  string_body(escaped);
  return escaped;
}

void JsonCursor::string_body(std::string& out) {
  while (true) {
    // The common case: a run of plain ASCII up to the closing quote, taken in one append.
    const char* run = p_;
    p_ = skip_plain_ascii(p_, end_);
    while (p_ < end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20 &&
           static_cast<unsigned char>(*p_) < 0x80)
      ++p_;
    out.append(run, p_);
    if (p_ >= end_)
      syntax_error("unexpected end of file inside a string");
    char c = *p_;
    if (c == '"') {
      ++p_;
      return;
    }
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      std::size_t length = utf8::sequence_length(reinterpret_cast<const unsigned char*>(p_),
                                                 reinterpret_cast<const unsigned char*>(end_));
      if (length == 0)
        syntax_error("invalid UTF-8 in a string");
      out.append(p_, length);
      p_ += length;
      continue;
    }
    if (byte < 0x20)
      syntax_error("control character inside a string (must be escaped)");
    // A backslash escape.
    if (p_ + 1 >= end_)
      syntax_error("unexpected end of file inside a string");
    char escape = p_[1];
    p_ += 2;
    switch (escape) {
    case '"':
    case '\\':
    case '/':
      out.push_back(escape);
      continue;
    case 'b':
      out.push_back('\b');
      continue;
    case 'f':
      out.push_back('\f');
      continue;
    case 'n':
      out.push_back('\n');
      continue;
    case 'r':
      out.push_back('\r');
      continue;
    case 't':
      out.push_back('\t');
      continue;
    case 'u':
      break;
    default:
      p_ -= 2;
      syntax_error("invalid escape in a string");
    }
    auto hex4 = [&] {
      if (end_ - p_ < 4)
        syntax_error("unexpected end of file in a \\u escape");
      unsigned value = 0;
      for (int i = 0; i < 4; ++i) {
        int digit = hex_value(p_[i]);
        if (digit < 0)
          syntax_error("invalid \\u escape");
        value = value * 16 + static_cast<unsigned>(digit);
      }
      p_ += 4;
      return value;
    };
    unsigned code_point = hex4();
    if (code_point >= 0xDC00 && code_point <= 0xDFFF)
      syntax_error("unpaired surrogate in a \\u escape");
    if (code_point >= 0xD800 && code_point <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
        syntax_error("unpaired surrogate in a \\u escape");
      p_ += 2;
      unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF)
        syntax_error("unpaired surrogate in a \\u escape");
      code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, code_point);
  }
}

std::string_view JsonCursor::number_text() {
  const char* start = p_;
  if (p_ < end_ && *p_ == '-')
    ++p_;
  if (p_ < end_ && *p_ == '0') {
    ++p_;
  } else if (p_ < end_ && is_digit(*p_) && *p_ != '0') {
    while (p_ < end_ && is_digit(*p_))
      ++p_;
  } else {
    syntax_error("invalid number");
  }
  if (p_ < end_ && *p_ == '.') {
    ++p_;
    if (p_ >= end_ || !is_digit(*p_))
      syntax_error("invalid number");
    while (p_ < end_ && is_digit(*p_))
      ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
      ++p_;
    if (p_ >= end_ || !is_digit(*p_))
      syntax_error("invalid number");
    while (p_ < end_ && is_digit(*p_))
      ++p_;
  }
  return {start, static_cast<std::size_t>(p_ - start)};
}

long long JsonCursor::integer() {
  char c = peek();
  if (c != '-' && !is_digit(c))
    wrong_value("a number");
  std::size_t start = offset();
  std::string_view text = number_text();
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size())
    return value;
  // 1.0 or 1e3: JSON writers may spell integers so; take them if they are whole.
  double real = 0;
  auto [real_end, real_ec] = std::from_chars(text.data(), text.data() + text.size(), real);
  if (real_ec == std::errc() && real_end == text.data() + text.size() && std::trunc(real) == real &&
      std::abs(real) < 9.0e15)
    return static_cast<long long>(real);
  rewind(start);
  shape_error("expected an integer");
}

int JsonCursor::int32() {
  std::size_t start = offset();
  long long value = integer();
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    rewind(start);
    shape_error("number out of range");
  }
  return static_cast<int>(value);
}

bool JsonCursor::boolean() {
  char c = peek();
  if (c == 't') {
    literal("true");
    return true;
  }
  if (c == 'f') {
    literal("false");
    return false;
  }
  wrong_value("true or false");
}

void JsonCursor::literal(std::string_view word) {
  if (static_cast<std::size_t>(end_ - p_) < word.size() ||
      std::string_view(p_, word.size()) != word)
    syntax_error("invalid literal");
  p_ += word.size();
}

void JsonCursor::skip_value(int depth) {
  if (depth > kMaxDepth)
    syntax_error("nested too deeply");
  switch (peek()) {
  case '{':
    object([&](std::string_view) { skip_value(depth + 1); });
    return;
  case '[':
    array([&](std::size_t) { skip_value(depth + 1); });
    return;
  case '"': {
    ++p_;
    std::string ignored;
    string_body(ignored);
    return;
  }
  case 't':
    literal("true");
    return;
  case 'f':
    literal("false");
    return;
  case 'n':
    literal("null");
    return;
  case '\0':
    syntax_error("unexpected end of file");
  default:
    if (*p_ == '-' || is_digit(*p_)) {
      number_text();
      return;
    }
    syntax_error("expected a JSON value");
  }
}

void JsonCursor::expect_end() {
  if (peek() != '\0' || p_ != end_)
    syntax_error("unexpected text after the end of the document");
}

} // namespace opscope::index
