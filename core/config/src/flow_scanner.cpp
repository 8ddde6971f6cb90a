// Tolerant reader of flow collections: all of JSON, and YAML's `{...}` / `[...]`.
// Missing commas, colons, closing brackets and quotes are reported and skipped
// over; the reader always returns a tree.
#include "opscope/config/scanner.h"

#include "opscope/support/utf8.h"

#include <cctype>
#include <cstdint>

namespace opscope::config::detail {
namespace {

// Parses `digits` hex digits at `pos`; returns false (and leaves cp) if they are not all hex.
bool read_hex(std::string_view text, std::size_t pos, int digits, unsigned long& cp) {
  if (pos + static_cast<std::size_t>(digits) > text.size())
    return false;
  unsigned long value = 0;
  for (int i = 0; i < digits; ++i) {
    char c = text[pos + static_cast<std::size_t>(i)];
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      return false;
    value = value * 16 + static_cast<unsigned long>(
                             std::isdigit(static_cast<unsigned char>(c))
                                 ? c - '0'
                                 : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
  }
  cp = value;
  return true;
}

} // namespace

QuotedScalar read_quoted(std::string_view text, std::size_t open_quote) {
  QuotedScalar out;
  const char quote = text[open_quote];
  std::size_t i = open_quote + 1;
  auto emit = [&](char c, std::size_t at) {
    out.value += c;
    out.offsets.push_back(at);
  };
  while (i < text.size() && text[i] != '\n') {
    char c = text[i];
    if (c == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') { // '' is a quote
        emit('\'', i);
        i += 2;
        continue;
      }
      out.terminated = true;
      out.offsets.push_back(i);
      out.end = i + 1;
      return out;
    }
    if (quote == '"' && c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
      char e = text[i + 1];
      std::size_t at = i;
      std::size_t before = out.value.size();
      unsigned long cp = 0;
      std::size_t consumed = 2;
      switch (e) {
      case 'n':
        out.value += '\n';
        break;
      case 't':
        out.value += '\t';
        break;
      case 'r':
        out.value += '\r';
        break;
      case 'b':
        out.value += '\b';
        break;
      case 'f':
        out.value += '\f';
        break;
      case '0':
        out.value += '\0';
        break;
      case 'a':
        out.value += '\a';
        break;
      case 'v':
        out.value += '\v';
        break;
      case 'e':
        out.value += '\x1b';
        break;
      case ' ':
        out.value += ' ';
        break;
      case '/':
        out.value += '/';
        break;
      case '"':
        out.value += '"';
        break;
      case '\\':
        out.value += '\\';
        break;
      case 'N':
        support::append_utf8(out.value, 0x85);
        break;
      case '_':
        support::append_utf8(out.value, 0xA0);
        break;
      case 'L':
        support::append_utf8(out.value, 0x2028);
        break;
      case 'P':
        support::append_utf8(out.value, 0x2029);
        break;
      case 'x':
      case 'u':
      case 'U': {
        int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (read_hex(text, i + 2, digits, cp)) {
          consumed = 2 + static_cast<std::size_t>(digits);
          unsigned long low = 0;
          // JSON spells characters beyond the BMP as a surrogate pair.
          if (e == 'u' && cp >= 0xD800 && cp < 0xDC00 && i + consumed + 1 < text.size() &&
              text[i + consumed] == '\\' && text[i + consumed + 1] == 'u' &&
              read_hex(text, i + consumed + 2, 4, low) && low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            consumed += 6;
          }
          support::append_utf8(out.value, static_cast<char32_t>(cp)); // at most 8 hex digits
        } else {
          out.value += '\\';
          out.value += e;
        }
        break;
      }
      default: // unknown escape: keep it as typed
        out.value += '\\';
        out.value += e;
      }
      for (std::size_t k = before; k < out.value.size(); ++k)
        out.offsets.push_back(at);
      i += consumed;
      continue;
    }
    emit(c, i);
    ++i;
  }
  out.offsets.push_back(i);
  out.end = i;
  return out;
}

std::vector<int> columns_of(const SourceText& source, const std::vector<std::size_t>& offsets) {
  std::vector<int> cols;
  cols.reserve(offsets.size());
  // Offsets ascend and almost always share one line: look a line up only when leaving it.
  std::size_t line_begin = 1, line_end = 0; // empty: the first offset looks its line up
  for (std::size_t off : offsets) {
    if (off < line_begin || off >= line_end) {
      Position p = source.position(off);
      auto line = static_cast<std::size_t>(p.line);
      line_begin = source.line_start(line);
      line_end = line + 1 < source.line_count() ? source.line_start(line + 1) : SIZE_MAX;
    }
    cols.push_back(static_cast<int>(off - line_begin));
  }
  return cols;
}

namespace {

class FlowScanner {
public:
  FlowScanner(const SourceText& source, bool yaml, int stop_indent, int depth, AnchorTable* anchors,
              std::vector<SyntaxProblem>& problems)
      : src_(source), text_(source.text()), yaml_(yaml), stop_indent_(stop_indent), depth_(depth),
        anchors_(anchors), problems_(problems) {}

  FlowResult run(std::size_t offset) {
    pos_ = offset;
    FlowResult result;
    result.node = value();
    result.end = pos_;
    return result;
  }

private:
  void problem(std::size_t begin, std::size_t end, std::string message) {
    problems_.push_back({src_.range(begin, end), std::move(message)});
  }

  // Collections left open where the text (or the YAML value) ends: the innermost is
  // reported, not every one around it (a run of thousands of '[' is one message).
  void unclosed(std::size_t open, std::string message) {
    if (unclosed_end_ == pos_)
      return;
    unclosed_end_ = pos_;
    problem(open, open + 1, std::move(message));
  }

  bool at_end() const { return pos_ >= text_.size() || stopped_; }

  // Skips blanks, newlines and (YAML) comments; in YAML, stops at a line that
  // dedents to the enclosing block, which ends an unterminated collection.
  void skip_space() {
    while (pos_ < text_.size() && !stopped_) {
      char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        if (yaml_ && stop_indent_ >= 0 && dedented_line_at(pos_))
          stopped_ = true;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#' && yaml_) {
        while (pos_ < text_.size() && text_[pos_] != '\n')
          ++pos_;
      } else {
        return;
      }
    }
  }

  bool dedented_line_at(std::size_t line_begin) const {
    std::size_t i = line_begin;
    int indent = 0;
    while (i < text_.size() && text_[i] == ' ') {
      ++i;
      ++indent;
    }
    if (i >= text_.size() || text_[i] == '\n' || text_[i] == '#' || text_[i] == '\r')
      return false; // blank and comment lines never end anything
    return indent <= stop_indent_ && text_[i] != '}' && text_[i] != ']';
  }

  std::unique_ptr<Node> null_at(std::size_t at) {
    auto node = std::make_unique<Node>();
    node->range = src_.range(at, at);
    return node;
  }

  std::unique_ptr<Node> value() {
    skip_space();
    if (at_end())
      return null_at(pos_);
    std::string anchor;
    if (yaml_ && text_[pos_] == '&') {
      std::size_t b = ++pos_;
      while (pos_ < text_.size() && !is_space_or_flow(text_[pos_]))
        ++pos_;
      anchor = std::string(text_.substr(b, pos_ - b));
      skip_space();
    }
    std::unique_ptr<Node> node;
    char c = at_end() ? '\0' : text_[pos_];
    if ((c == '{' || c == '[') && depth_ >= kMaxNesting) {
      node = skip_too_deep();
    } else if (c == '{' || c == '[') {
      ++depth_;
      node = c == '{' ? mapping() : sequence();
      --depth_;
    } else if (c == '"' || (c == '\'' && yaml_))
      node = quoted();
    else if (yaml_ && c == '*')
      node = alias();
    else if (c == ',' || c == '}' || c == ']' || c == ':' || c == '\0')
      node = null_at(pos_);
    else
      node = plain();
    if (!anchor.empty() && anchors_)
      anchors_->define(anchor, node.get());
    return node;
  }

  // A collection opening deeper than kMaxNesting: reported once, and its text (brackets
  // balanced, strings skipped) passed over without recursion. It reads as null.
  std::unique_ptr<Node> skip_too_deep() {
    std::size_t b = pos_;
    problems_.push_back(too_deep(src_.range(b, b + 1)));
    std::size_t open = 0;
    while (true) {
      skip_space();
      if (at_end())
        break;
      char c = text_[pos_];
      if (c == '{' || c == '[') {
        ++open;
        ++pos_;
      } else if (c == '}' || c == ']') {
        ++pos_;
        if (--open == 0)
          break;
      } else if (c == '"' || (c == '\'' && yaml_)) {
        pos_ = read_quoted(text_, pos_).end;
      } else {
        ++pos_;
      }
    }
    auto node = std::make_unique<Node>();
    node->range = src_.range(b, pos_);
    return node;
  }

  static bool is_space_or_flow(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '{' || c == '}' ||
           c == '[' || c == ']';
  }

  std::unique_ptr<Node> alias() {
    std::size_t b = pos_++;
    while (pos_ < text_.size() && !is_space_or_flow(text_[pos_]))
      ++pos_;
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Alias;
    node->alias_name = std::string(text_.substr(b + 1, pos_ - b - 1));
    node->range = src_.range(b, pos_);
    node->target = anchors_ ? anchors_->find(node->alias_name) : nullptr;
    if (!node->target)
      problem(b, pos_, "unknown anchor '" + node->alias_name + "'");
    return node;
  }

  std::unique_ptr<Node> quoted() {
    std::size_t b = pos_;
    QuotedScalar q = read_quoted(text_, pos_);
    pos_ = q.end;
    if (!q.terminated)
      problem(b, q.end, "unterminated string: add the closing " + std::string(1, text_[b]));
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Scalar;
    node->quoted = true;
    node->scalar = std::move(q.value);
    node->range = src_.range(b, q.end);
    return node;
  }

  // A bare word: a YAML plain scalar, or (tolerated) an unquoted word in JSON.
  std::unique_ptr<Node> plain() {
    std::size_t b = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']' || c == '"')
        break;
      if (c == ':' && (pos_ + 1 >= text_.size() || is_space_or_flow(text_[pos_ + 1]) || !yaml_))
        break;
      if (c == '#' && yaml_ && pos_ > b && (text_[pos_ - 1] == ' ' || text_[pos_ - 1] == '\t'))
        break;
      ++pos_;
    }
    std::size_t e = pos_;
    while (e > b && (text_[e - 1] == ' ' || text_[e - 1] == '\t' || text_[e - 1] == '\r'))
      --e;
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Scalar;
    node->scalar = std::string(text_.substr(b, e - b));
    node->range = src_.range(b, e);
    if (!yaml_ && !is_json_literal(node->scalar))
      problem(b, e, "'" + node->scalar + "' is not valid JSON: put strings in double quotes");
    return node;
  }

  static bool is_json_literal(const std::string& s) {
    if (s == "true" || s == "false" || s == "null")
      return true;
    if (s.empty())
      return false;
    for (char c : s)
      if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.' ||
            c == 'e' || c == 'E'))
        return false;
    return true;
  }

  std::unique_ptr<Node> sequence() {
    std::size_t b = pos_++;
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Seq;
    while (true) {
      skip_space();
      if (at_end()) {
        unclosed(b, "unclosed '[': add the matching ']'");
        break;
      }
      char c = text_[pos_];
      if (c == ']') {
        ++pos_;
        break;
      }
      if (c == '}') {
        problem(pos_, pos_ + 1, "'}' closes a '[': use ']'");
        ++pos_;
        break;
      }
      if (c == ',') {
        ++pos_;
        continue;
      }
      std::size_t before = pos_;
      node->items.push_back(value());
      if (pos_ == before)
        ++pos_; // never loop on a character nothing accepts
    }
    node->range = src_.range(b, pos_);
    return node;
  }

  std::unique_ptr<Node> mapping() {
    std::size_t b = pos_++;
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Map;
    bool need_comma = false;
    while (true) {
      skip_space();
      if (at_end()) {
        unclosed(b, "unclosed '{': add the matching '}'");
        break;
      }
      char c = text_[pos_];
      if (c == '}') {
        ++pos_;
        break;
      }
      if (c == ']') {
        problem(pos_, pos_ + 1, "']' closes a '{': use '}'");
        ++pos_;
        break;
      }
      if (c == ',') {
        ++pos_;
        need_comma = false;
        continue;
      }
      if (need_comma && !yaml_)
        problem(pos_, pos_ + 1, "missing ',' before this key");
      std::size_t before = pos_;
      entry(*node);
      need_comma = true;
      if (pos_ == before)
        ++pos_;
    }
    node->range = src_.range(b, pos_);
    return node;
  }

  void entry(Node& map) {
    Entry e;
    std::size_t kb = pos_;
    char c = text_[pos_];
    if (c == '{' || c == '[') { // a collection as a key: not ours, read and drop it
      std::unique_ptr<Node> dropped = value();
      if (anchors_) // an anchor inside it may still be aliased
        anchors_->detached.push_back(std::move(dropped));
      return;
    }
    if (c == '"' || (c == '\'' && yaml_)) {
      QuotedScalar q = read_quoted(text_, pos_);
      if (!q.terminated)
        problem(kb, q.end, "unterminated string: add the closing " + std::string(1, c));
      pos_ = q.end;
      e.key = std::move(q.value);
      e.quoted = true;
      e.quote = c;
      e.key_cols = columns_of(src_, q.offsets);
    } else {
      auto word = plain();
      e.key = word->scalar;
      std::vector<std::size_t> offsets;
      for (std::size_t i = 0; i <= e.key.size(); ++i)
        offsets.push_back(kb + i);
      e.key_cols = columns_of(src_, offsets);
    }
    e.key_range = src_.range(kb, pos_);
    // The colon must follow on the same line; a key alone on its line is half-typed.
    std::size_t look = pos_;
    while (look < text_.size() && (text_[look] == ' ' || text_[look] == '\t'))
      ++look;
    if (look < text_.size() && text_[look] == ':') {
      pos_ = look + 1;
      e.has_colon = true;
      e.value = value();
    } else {
      problem(kb, pos_, "missing ':' after key '" + e.key + "'");
    }
    map.entries.push_back(std::move(e));
  }

  const SourceText& src_;
  std::string_view text_;
  bool yaml_;
  int stop_indent_;
  int depth_; // collections open around pos_, the YAML block levels included
  AnchorTable* anchors_;
  std::vector<SyntaxProblem>& problems_;
  std::size_t pos_ = 0;
  bool stopped_ = false;
  std::size_t unclosed_end_ = std::string_view::npos; // where the last unclosed one ended
};

} // namespace

FlowResult scan_flow(const SourceText& source, std::size_t offset, bool yaml, int stop_indent,
                     int depth, AnchorTable* anchors, std::vector<SyntaxProblem>& problems) {
  return FlowScanner(source, yaml, stop_indent, depth, anchors, problems).run(offset);
}

SyntaxProblem too_deep(Range where) {
  return {where,
          "nesting deeper than " + std::to_string(kMaxNesting) +
              " levels; coreai-opt configs need at most ~6: the rest of this value is skipped",
          "too-deep"};
}

Tree scan_json(const SourceText& source) {
  Tree tree;
  std::size_t start = source.text().substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; // byte order mark
  FlowResult r = scan_flow(source, start, false, -1, 0, nullptr, tree.problems);
  tree.root = std::move(r.node);
  std::string_view text = source.text();
  std::size_t i = r.end;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    ++i;
  if (i < text.size())
    tree.problems.push_back(
        {source.range(i, text.size()), "text after the end of the JSON document"});
  return tree;
}

} // namespace opscope::config::detail
