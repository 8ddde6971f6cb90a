// The plain-text tables of the dialects' `explain`: every column as wide as its widest cell
// (a class name such as NonDynamicallyQuantizableLinear included), so the columns line up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

namespace opscope::dialects {

inline std::string padded(std::string text, std::size_t width) {
  text.resize(std::max(text.size(), width), ' ');
  return text;
}

} // namespace opscope::dialects
