// The scanners under opscope/config/tree.h, for a dialect's own reader built on them
// (coreai-opt's Python reader and its cursor context): source positions, quoted scalars, the
// YAML, JSON and flow readers, anchors.
#pragma once

#include "opscope/config/positions.h"
#include "opscope/config/tree.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace opscope::config::detail {

// Maps byte offsets of the source to (line, byte column).
class SourceText {
public:
  explicit SourceText(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n')
        line_starts_.push_back(i + 1);
  }
  std::string_view text() const { return text_; }
  Position position(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    int line = static_cast<int>(it - line_starts_.begin()) - 1;
    return {line, static_cast<int>(offset - line_starts_[static_cast<std::size_t>(line)])};
  }
  Range range(std::size_t begin, std::size_t end) const { return {position(begin), position(end)}; }
  std::size_t offset(Position p) const {
    if (p.line < 0)
      return 0;
    if (static_cast<std::size_t>(p.line) >= line_starts_.size())
      return text_.size();
    std::size_t start = line_starts_[static_cast<std::size_t>(p.line)];
    std::size_t end = text_.find('\n', start);
    if (end == std::string_view::npos)
      end = text_.size();
    return std::min(start + static_cast<std::size_t>(std::max(p.byte_col, 0)), end);
  }
  std::size_t line_count() const { return line_starts_.size(); }
  std::size_t line_start(std::size_t line) const { return line_starts_[line]; }

private:
  std::string_view text_;
  std::vector<std::size_t> line_starts_;
};

// A quoted scalar read up to its closing quote (or the end of the line when
// unterminated: an editor's half-typed string never swallows the next lines).
struct QuotedScalar {
  std::string value;
  std::vector<std::size_t> offsets; // source offset of each value byte, plus one past the end
  std::size_t end = 0;              // offset after the closing quote (or the line end)
  bool terminated = false;
};
QuotedScalar read_quoted(std::string_view text, std::size_t open_quote);

Tree scan_yaml(const SourceText& source);
Tree scan_json(const SourceText& source);

// Reads a flow collection or scalar at `offset` (JSON, or YAML flow style). In
// YAML, an unterminated collection stops at the first later line indented at
// most `stop_indent`, so one missing '}' does not swallow the document.
struct FlowResult {
  std::unique_ptr<Node> node;
  std::size_t end = 0;
};
struct AnchorTable;
// `depth`: how many collections enclose the one at `offset` (the YAML block levels
// around it), so that both readers together stop at kMaxNesting.
FlowResult scan_flow(const SourceText& source, std::size_t offset, bool yaml, int stop_indent,
                     int depth, AnchorTable* anchors, std::vector<SyntaxProblem>& problems);

// YAML anchors seen so far (the latest definition wins for later aliases). Hashed: a
// generated config may define and use tens of thousands.
struct AnchorTable {
  std::unordered_map<std::string, const Node*> anchors;
  std::vector<std::unique_ptr<Node>> detached; // see Tree::detached
  void define(std::string name, const Node* node) { anchors[std::move(name)] = node; }
  const Node* find(const std::string& name) const {
    auto it = anchors.find(name);
    return it == anchors.end() ? nullptr : it->second;
  }
};

// The problem reported where a collection opens deeper than kMaxNesting.
SyntaxProblem too_deep(Range where);

std::vector<int> columns_of(const SourceText& source, const std::vector<std::size_t>& offsets);

} // namespace opscope::config::detail
