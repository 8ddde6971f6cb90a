// A pull reader over JSON text, for loading the index straight into its structs without an
// intermediate DOM (the DOM parse + conversion was most of the language server's warm start).
// It accepts exactly RFC 8259 JSON in UTF-8 and reports where the text stops making sense.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace opscope::index {

class JsonReadError : public std::runtime_error {
public:
  // Syntax: the text is not JSON. Shape: it is JSON, but not the value the caller expected.
  enum class Kind { Syntax, Shape };
  JsonReadError(Kind kind, std::size_t offset, const std::string& what)
      : std::runtime_error(what), kind(kind), offset(offset) {}
  Kind kind;
  std::size_t offset; // byte offset into the text
};

class JsonCursor {
public:
  explicit JsonCursor(std::string_view text)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }
  void rewind(std::size_t offset) { p_ = begin_ + offset; }

  // The first byte of the next value (after whitespace), or '\0' at the end of the text.
  char peek() {
    skip_whitespace();
    return p_ < end_ ? *p_ : '\0';
  }

  void string(std::string& out);
  std::string string() {
    std::string out;
    string(out);
    return out;
  }
  long long integer();
  int int32();
  bool boolean();

  // Calls on_member(key) for each member; on_member must consume the value.
  template <class OnMember> void object(OnMember&& on_member) {
    open('{', "an object");
    if (peek() == '}') {
      ++p_;
      return;
    }
    std::string escaped_key; // only used when a key has escapes; plain keys point into the text
    while (true) {
      if (peek() != '"')
        syntax_error("expected a member name in quotes");
      std::string_view key = key_view(escaped_key);
      if (peek() != ':')
        syntax_error("expected ':' after a member name");
      ++p_;
      on_member(key);
      char next = peek();
      if (next != ',' && next != '}')
        syntax_error("expected ',' or '}' in an object");
      ++p_;
      if (next == '}')
        return;
    }
  }

  // Calls on_element(i) for each element i; on_element must consume the value.
  template <class OnElement> void array(OnElement&& on_element) {
    open('[', "an array");
    if (peek() == ']') {
      ++p_;
      return;
    }
    for (std::size_t i = 0;; ++i) {
      on_element(i);
      char next = peek();
      if (next != ',' && next != ']')
        syntax_error("expected ',' or ']' in an array");
      ++p_;
      if (next == ']')
        return;
    }
  }

  // Consumes any one value, checking its syntax.
  void skip_value(int depth = 0);
  // Fails unless only whitespace is left.
  void expect_end();

  [[noreturn]] void syntax_error(const std::string& what) const;
  [[noreturn]] void shape_error(const std::string& what) const;

private:
  void skip_whitespace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
      ++p_;
  }
  void open(char bracket, const char* expected);
  // Fails as a shape error when a different kind of value starts here, a syntax error otherwise.
  [[noreturn]] void wrong_value(const char* expected);
  std::string_view key_view(std::string& escaped);
  // Appends the string body from p_ (just past the opening quote) up to the closing quote.
  void string_body(std::string& out);
  std::string_view number_text();
  void literal(std::string_view word);

  const char* begin_;
  const char* p_;
  const char* end_;
};

} // namespace opscope::index
