// Converts between LSP positions (UTF-16 or negotiated units) and the byte
// columns core/config and the features use, for one document version.
#pragma once

#include "opscope/config/positions.h"
#include "opscope/protocol/lsp_types.h"

#include <optional>

namespace opscope::lsp {

class PositionMapper {
public:
  PositionMapper(std::string_view text, protocol::PositionEncoding encoding)
      : text_(text), owned_(std::in_place, text), lines_(*owned_), encoding_(encoding) {}
  // Over a table the caller keeps (DocumentStore::lines) for `text`.
  PositionMapper(std::string_view text, const protocol::LineTable& lines,
                 protocol::PositionEncoding encoding)
      : text_(text), lines_(lines), encoding_(encoding) {}
  PositionMapper(const PositionMapper&) = delete;
  PositionMapper& operator=(const PositionMapper&) = delete;

  config::Position to_config(protocol::Position p) const {
    std::size_t offset = lines_.offset_at(p, encoding_);
    protocol::Position start{lines_.position_at(offset, encoding_).line, 0};
    std::size_t line_start = lines_.offset_at(start, encoding_);
    return {start.line, static_cast<int>(offset - line_start)};
  }

  protocol::Position to_lsp(config::Position p) const {
    if (p.line >= lines_.line_count())
      return lines_.position_at(text_.size(), encoding_);
    std::size_t line_start = lines_.offset_at({p.line, 0}, encoding_);
    std::size_t length = lines_.line(p.line).size();
    std::size_t col = static_cast<std::size_t>(std::max(p.byte_col, 0));
    return lines_.position_at(line_start + std::min(col, length), encoding_);
  }

  protocol::Range to_lsp(const config::Range& r) const { return {to_lsp(r.start), to_lsp(r.end)}; }
  config::Range to_config(const protocol::Range& r) const {
    return {to_config(r.start), to_config(r.end)};
  }

private:
  std::string_view text_;
  std::optional<protocol::LineTable> owned_;
  const protocol::LineTable& lines_;
  protocol::PositionEncoding encoding_;
};

} // namespace opscope::lsp
