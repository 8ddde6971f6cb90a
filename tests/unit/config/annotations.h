// Annotated test snippets in the style of clangd's Annotations: `^` marks a
// point and `[[...]]` a range; both are removed from the code, and their
// positions are reported as 0-based line + byte column.
#pragma once

#include "opscope/coreai/config/document.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace opscope::testing {

class Annotations {
public:
  explicit Annotations(const std::string& annotated) {
    config::Position at;
    std::vector<config::Position> open;
    for (std::size_t i = 0; i < annotated.size(); ++i) {
      if (annotated.compare(i, 2, "[[") == 0) {
        open.push_back(at);
        ++i;
        continue;
      }
      if (annotated.compare(i, 2, "]]") == 0 && !open.empty()) {
        ranges_.push_back({open.back(), at});
        open.pop_back();
        ++i;
        continue;
      }
      if (annotated[i] == '^') {
        points_.push_back(at);
        continue;
      }
      code_ += annotated[i];
      if (annotated[i] == '\n') {
        ++at.line;
        at.byte_col = 0;
      } else {
        ++at.byte_col;
      }
    }
  }
  const std::string& code() const { return code_; }
  config::Position point() const {
    if (points_.size() != 1)
      throw std::logic_error("expected exactly one ^");
    return points_.front();
  }
  const std::vector<config::Position>& points() const { return points_; }
  config::Range range(std::size_t i = 0) const { return ranges_.at(i); }
  const std::vector<config::Range>& ranges() const { return ranges_; }

private:
  std::string code_;
  std::vector<config::Position> points_;
  std::vector<config::Range> ranges_;
};

} // namespace opscope::testing
