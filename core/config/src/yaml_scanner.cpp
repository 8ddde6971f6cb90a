// Tolerant, line- and indentation-based YAML reader for the subset configs use:
// block mappings and sequences, flow collections, plain / quoted / block
// scalars, comments, anchors, aliases and merge keys. Unlike a strict parser it
// never gives up: a key without a colon is a half-typed key, a bad indent is
// reported and read anyway, an unterminated string ends at its line.
#include "opscope/config/scanner.h"

namespace opscope::config::detail {
namespace {

struct Line {
  std::size_t begin = 0; // offset of the first byte
  std::size_t end = 0;   // offset of the '\n' (or the end of the text)
  int indent = 0;        // leading spaces (tabs are reported and counted as one)
  bool blank = true;     // empty, spaces only, or a comment
};

class YamlScanner {
public:
  explicit YamlScanner(const SourceText& source) : src_(source), text_(source.text()) {
    for (std::size_t n = 0; n < source.line_count(); ++n) {
      Line line;
      line.begin = source.line_start(n);
      if (n == 0 && text_.substr(0, 3) == "\xEF\xBB\xBF")
        line.begin = 3; // a UTF-8 byte order mark is not content
      std::size_t e = text_.find('\n', line.begin);
      line.end = e == std::string_view::npos ? text_.size() : e;
      if (line.end > line.begin && text_[line.end - 1] == '\r')
        --line.end;
      std::size_t i = line.begin;
      bool tab = false;
      while (i < line.end && (text_[i] == ' ' || text_[i] == '\t')) {
        tab = tab || text_[i] == '\t';
        ++i;
      }
      line.indent = static_cast<int>(i - line.begin);
      line.blank = i == line.end || text_[i] == '#';
      bool marker = (starts_with(i, "---") || starts_with(i, "...")) &&
                    (i + 3 == line.end || text_[i + 3] == ' ') && line.indent == 0;
      bool directive = line.indent == 0 && i < line.end && text_[i] == '%';
      if (marker || directive)
        line.blank = true; // document markers and directives carry no keys
      if (tab && !line.blank)
        problem(line.begin, i, "tab in indentation: YAML allows only spaces here");
      lines_.push_back(line);
    }
  }

  Tree run() {
    skip_blank();
    std::unique_ptr<Node> root;
    if (li_ >= lines_.size()) {
      root = std::make_unique<Node>();
    } else {
      root = block_node(lines_[li_].indent, -1, /*prefer_scalar=*/false);
    }
    // Anything left (a line dedented below the root) still belongs to the document.
    while (li_ < lines_.size()) {
      skip_blank();
      if (li_ >= lines_.size())
        break;
      if (root->kind != Node::Kind::Map) {
        problem(lines_[li_].begin, lines_[li_].end, "unexpected content after the document");
        ++li_;
        continue;
      }
      std::size_t before = li_;
      auto more = block_map(lines_[li_].indent, -1);
      for (auto& e : more->entries)
        root->entries.push_back(std::move(e));
      if (li_ == before) { // nothing a mapping takes (a sequence item after it): never loop
        problem(lines_[li_].begin, lines_[li_].end, "unexpected content after the document");
        ++li_;
      }
    }
    Tree tree;
    tree.root = std::move(root);
    tree.problems = std::move(problems_);
    tree.detached = std::move(anchors_.detached);
    return tree;
  }

private:
  bool starts_with(std::size_t at, std::string_view s) const {
    return text_.substr(at, s.size()) == s;
  }
  void problem(std::size_t b, std::size_t e, std::string message) {
    problems_.push_back({src_.range(b, e), std::move(message)});
  }
  void skip_blank() {
    while (li_ < lines_.size() && lines_[li_].blank)
      ++li_;
  }
  std::size_t content(const Line& line) const {
    return line.begin + static_cast<std::size_t>(line.indent);
  }

  // Where a node starts on `line`: at `first_col` when it follows a "- " or "key: " on
  // the same line (first_col >= 0), else at the line's content.
  std::size_t node_start(const Line& line, int first_col) const {
    return first_col >= 0 ? line.begin + static_cast<std::size_t>(first_col) : content(line);
  }

  bool is_seq_item(std::size_t at, std::size_t end) const {
    return at < end && text_[at] == '-' &&
           (at + 1 == end || text_[at + 1] == ' ' || text_[at + 1] == '\t');
  }

  // Whether nothing but a comment follows `at` (which is past any blanks). Checked in
  // O(1): each level of `- - - ...` asking comment_start for the whole line was quadratic.
  bool rest_is_empty(std::size_t at, std::size_t end) const {
    return at >= end || text_[at] == '#';
  }

  // Where a comment starts on [at, end), or end.
  std::size_t comment_start(std::size_t at, std::size_t end) const {
    for (std::size_t i = at; i < end; ++i)
      if (text_[i] == '#' && (i == at || text_[i - 1] == ' ' || text_[i - 1] == '\t'))
        return i;
    return end;
  }

  // Offset of the ':' that ends a plain key starting at `at`, or npos.
  std::size_t plain_key_colon(std::size_t at, std::size_t end) const {
    for (std::size_t i = at; i < end; ++i) {
      char c = text_[i];
      if (c == '#' && i > at && (text_[i - 1] == ' ' || text_[i - 1] == '\t'))
        return std::string_view::npos;
      if (c == ':' && (i + 1 == end || text_[i + 1] == ' ' || text_[i + 1] == '\t'))
        return i;
    }
    return std::string_view::npos;
  }

  bool looks_like_key(std::size_t at, std::size_t end) const {
    if (at >= end)
      return false;
    char c = text_[at];
    if (c == '"' || c == '\'') {
      QuotedScalar q = read_quoted(text_, at);
      std::size_t i = q.end;
      while (i < end && text_[i] == ' ')
        ++i;
      return i < end && text_[i] == ':';
    }
    return plain_key_colon(at, end) != std::string_view::npos;
  }

  // A node whose first line is lines_[li_], starting at column `first_col`
  // (or the line's indent when -1), indented at `indent`.
  std::unique_ptr<Node> block_node(int indent, int first_col, bool prefer_scalar) {
    const Line& line = lines_[li_];
    std::size_t at = node_start(line, first_col);
    if (is_seq_item(at, line.end))
      return block_seq(indent, first_col);
    char c = text_[at];
    // A nested value without a colon is a half-typed key (configs nest mappings),
    // except in a sequence, where it is an item.
    if (c == '{' || c == '[' || c == '*' || c == '&' || c == '|' || c == '>' ||
        (prefer_scalar && !looks_like_key(at, line.end)))
      return inline_value(at, indent - 1);
    return block_map(indent, first_col);
  }

  // Each block collection is one nesting level; past kMaxNesting its lines are skipped.
  struct Level {
    explicit Level(int& counter) : depth(counter) { ++depth; }
    ~Level() { --depth; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    int& depth;
  };

  // A block collection starting at lines_[li_] (column `first_col`, or its indent) that
  // opens deeper than kMaxNesting: reported once, then the lines it would span are passed
  // over (those indented past `indent`, and for a map those at `indent` too). Reads as null.
  std::unique_ptr<Node> skip_too_deep(int indent, int first_col, bool seq) {
    const Line& first = lines_[li_];
    std::size_t begin = node_start(first, first_col);
    problems_.push_back(too_deep(src_.range(begin, begin + 1)));
    std::size_t end = first.end;
    ++li_;
    while (li_ < lines_.size()) {
      const Line& line = lines_[li_];
      bool inside = line.blank || line.indent > indent ||
                    (line.indent == indent && (!seq || is_seq_item(content(line), line.end)));
      if (!inside)
        break;
      if (!line.blank)
        end = line.end;
      ++li_;
    }
    auto node = std::make_unique<Node>();
    node->range = src_.range(begin, end);
    return node;
  }

  std::unique_ptr<Node> block_seq(int indent, int first_col) {
    if (depth_ >= kMaxNesting)
      return skip_too_deep(indent, first_col, true);
    Level level(depth_);
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Seq;
    std::size_t begin = node_start(lines_[li_], first_col);
    std::size_t last_end = begin;
    bool first = true;
    while (true) {
      skip_blank();
      if (li_ >= lines_.size())
        break;
      const Line& line = lines_[li_];
      std::size_t at = node_start(line, first ? first_col : -1);
      if (!first && (line.indent != indent || !is_seq_item(at, line.end)))
        break;
      first = false;
      std::size_t item = at + 1;
      while (item < line.end && (text_[item] == ' ' || text_[item] == '\t'))
        ++item;
      if (rest_is_empty(item, line.end)) { // "-" alone: the item is on the next lines
        ++li_;
        skip_blank();
        if (li_ < lines_.size() && lines_[li_].indent > indent) {
          node->items.push_back(block_node(lines_[li_].indent, -1, true));
        } else {
          auto null = std::make_unique<Node>();
          null->range = src_.range(item, item);
          node->items.push_back(std::move(null));
        }
      } else {
        int col = static_cast<int>(item - line.begin);
        node->items.push_back(block_node(col, col, true));
      }
      last_end = std::max(last_end, src_.offset(node->items.back()->range.end));
    }
    node->range = src_.range(begin, last_end);
    return node;
  }

  std::unique_ptr<Node> block_map(int indent, int first_col) {
    if (depth_ >= kMaxNesting)
      return skip_too_deep(indent, first_col, false);
    Level level(depth_);
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Map;
    std::size_t begin = node_start(lines_[li_], first_col);
    std::size_t last_end = begin;
    bool first = true;
    while (true) {
      skip_blank();
      if (li_ >= lines_.size())
        break;
      const Line& line = lines_[li_];
      std::size_t at;
      if (first && first_col >= 0) {
        at = line.begin + static_cast<std::size_t>(first_col);
      } else {
        if (line.indent < indent)
          break;
        at = content(line);
        if (line.indent == indent && is_seq_item(at, line.end))
          break; // a sequence at the key's indent belongs to the parent key
        if (line.indent > indent)
          problem(line.begin, at, "unexpected indentation: align this key with the keys above");
      }
      first = false;
      node->entries.push_back(entry(at, indent));
      const Entry& e = node->entries.back();
      last_end = std::max(last_end, src_.offset(e.value ? e.value->range.end : e.key_range.end));
    }
    node->range = src_.range(begin, last_end);
    return node;
  }

  Entry entry(std::size_t at, int indent) {
    const Line& line = lines_[li_];
    Entry e;
    std::size_t key_end;
    if (text_[at] == '"' || text_[at] == '\'') {
      QuotedScalar q = read_quoted(text_, at);
      if (!q.terminated)
        problem(at, q.end, "unterminated string: add the closing " + std::string(1, text_[at]));
      e.key = std::move(q.value);
      e.quoted = true;
      e.quote = text_[at];
      e.key_cols = columns_of(src_, q.offsets);
      key_end = q.end;
      std::size_t i = key_end;
      while (i < line.end && (text_[i] == ' ' || text_[i] == '\t'))
        ++i;
      if (i < line.end && text_[i] == ':') {
        e.has_colon = true;
        e.key_range = src_.range(at, q.end);
        e.value = after_colon(i + 1, indent);
        return e;
      }
    } else {
      std::size_t colon = plain_key_colon(at, line.end);
      std::size_t stop = colon != std::string_view::npos ? colon : comment_start(at, line.end);
      key_end = stop;
      while (key_end > at && (text_[key_end - 1] == ' ' || text_[key_end - 1] == '\t'))
        --key_end;
      e.key = std::string(text_.substr(at, key_end - at));
      // A plain key is one run of its line: its columns follow from where it starts.
      int first = static_cast<int>(at - line.begin);
      e.key_cols.resize(key_end - at + 1);
      for (std::size_t i = 0; i < e.key_cols.size(); ++i)
        e.key_cols[i] = first + static_cast<int>(i);
      e.key_range = src_.range(at, key_end);
      if (colon != std::string_view::npos) {
        e.has_colon = true;
        e.value = after_colon(colon + 1, indent);
        return e;
      }
    }
    e.key_range = src_.range(at, key_end);
    problem(at, key_end, "missing ':' after key '" + e.key + "'");
    ++li_;
    return e;
  }

  // The value after `key:`; `indent` is the key's indentation.
  std::unique_ptr<Node> after_colon(std::size_t at, int indent) {
    const Line& line = lines_[li_];
    while (at < line.end && (text_[at] == ' ' || text_[at] == '\t'))
      ++at;
    // Anchors and tags (`&a !!map`), read in a loop: a line of thousands of them must
    // not recurse. Every anchor names the value; tags are ignored.
    std::vector<std::string> anchors;
    while (at < line.end && (text_[at] == '&' || text_[at] == '!')) {
      bool anchor = text_[at] == '&';
      std::size_t b = anchor ? ++at : at;
      while (at < line.end && text_[at] != ' ' && text_[at] != '\t')
        ++at;
      if (anchor)
        anchors.emplace_back(text_.substr(b, at - b));
      while (at < line.end && (text_[at] == ' ' || text_[at] == '\t'))
        ++at;
    }
    std::unique_ptr<Node> node;
    if (rest_is_empty(at, line.end)) {
      std::size_t colon_end = at;
      ++li_;
      skip_blank();
      if (li_ < lines_.size() && lines_[li_].indent > indent) {
        node = block_node(lines_[li_].indent, -1, false);
      } else if (li_ < lines_.size() && lines_[li_].indent == indent &&
                 is_seq_item(content(lines_[li_]), lines_[li_].end)) {
        node = block_seq(indent, -1);
      } else {
        node = std::make_unique<Node>();
        node->range = src_.range(colon_end, colon_end);
      }
    } else {
      node = inline_value(at, indent);
    }
    for (std::string& anchor : anchors)
      if (!anchor.empty())
        anchors_.define(std::move(anchor), node.get());
    return node;
  }

  // A value that starts on the current line at `at`; consumes its lines.
  std::unique_ptr<Node> inline_value(std::size_t at, int indent) {
    const Line& line = lines_[li_];
    char c = text_[at];
    if (c == '&') // anchors before a value on the same line or the next lines
      return after_colon(at, indent);
    if (c == '{' || c == '[') {
      FlowResult r = scan_flow(src_, at, true, indent, depth_, &anchors_, problems_);
      // Resume after the collection; an unterminated one stopped at the start of a
      // dedented line, which is read again as a key.
      std::size_t end_line = static_cast<std::size_t>(src_.position(r.end).line);
      if (end_line > li_ && r.end == lines_[end_line].begin)
        li_ = end_line;
      else
        li_ = end_line + 1;
      return std::move(r.node);
    }
    auto node = std::make_unique<Node>();
    if (c == '*') {
      std::size_t b = at++;
      while (at < line.end && text_[at] != ' ' && text_[at] != '\t' && text_[at] != ',')
        ++at;
      node->kind = Node::Kind::Alias;
      node->alias_name = std::string(text_.substr(b + 1, at - b - 1));
      node->target = anchors_.find(node->alias_name);
      node->range = src_.range(b, at);
      if (!node->target)
        problem(b, at,
                "unknown anchor '" + node->alias_name + "': define it with &" + node->alias_name +
                    " before use");
      ++li_;
      return node;
    }
    if (c == '|' || c == '>') { // block scalar: the more-indented lines that follow
      node->kind = Node::Kind::Scalar;
      std::size_t end = line.end;
      ++li_;
      while (li_ < lines_.size() &&
             (lines_[li_].indent > indent || lines_[li_].begin == lines_[li_].end)) {
        end = lines_[li_].end;
        ++li_;
      }
      node->range = src_.range(at, end);
      node->scalar = std::string(text_.substr(at, end - at));
      return node;
    }
    if (c == '"' || c == '\'') {
      std::size_t b = at;
      QuotedScalar q = read_quoted(text_, at);
      if (!q.terminated)
        problem(b, q.end, "unterminated string: add the closing " + std::string(1, c));
      node->kind = Node::Kind::Scalar;
      node->quoted = true;
      node->scalar = std::move(q.value);
      node->range = src_.range(b, q.end);
      ++li_;
      return node;
    }
    std::size_t end = comment_start(at, line.end);
    while (end > at && (text_[end - 1] == ' ' || text_[end - 1] == '\t'))
      --end;
    node->kind = Node::Kind::Scalar;
    node->scalar = std::string(text_.substr(at, end - at));
    node->range = src_.range(at, end);
    ++li_;
    return node;
  }

  const SourceText& src_;
  std::string_view text_;
  std::vector<Line> lines_;
  std::size_t li_ = 0;
  int depth_ = 0; // block collections open around li_
  AnchorTable anchors_;
  std::vector<SyntaxProblem> problems_;
};

} // namespace

Tree scan_yaml(const SourceText& source) {
  return YamlScanner(source).run();
}

} // namespace opscope::config::detail
