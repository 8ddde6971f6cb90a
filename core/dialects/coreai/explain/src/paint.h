// Colour for explain's tables on a terminal: SGR codes around a cell when `on`
// (cli::use_color decides: a terminal, --color, --no-color, NO_COLOR). Widths are counted on the
// plain text, so columns line up with or without colour.
#pragma once

#include <string>

namespace opscope::coreai_explain {

struct Paint {
  bool on = false;
  std::string operator()(const char* sgr, const std::string& text) const {
    return on && !text.empty() ? "\x1b[" + std::string(sgr) + "m" + text + "\x1b[0m" : text;
  }
};

inline constexpr const char* kBold = "1";
inline constexpr const char* kDim = "2";
inline constexpr const char* kGreen = "32";  // the deciding entry
inline constexpr const char* kYellow = "33"; // full precision, warnings
inline constexpr const char* kBlue = "34";   // information
inline constexpr const char* kCyan = "36";   // modules

// `text` (already painted) followed by the spaces that make its plain width `width`.
inline std::string padded(const std::string& text, std::size_t plain, std::size_t width) {
  return text + std::string(width > plain ? width - plain : 0, ' ');
}

} // namespace opscope::coreai_explain
