// The text search a dialect's recognises() runs before any parse. Every dialect is asked about
// every revision of every open config, a 3 MB coreai-opt config included, so the search must
// not cost more than the keystroke: memmem skips ahead by byte pairs, where std::string::find
// stopped at every occurrence of the word's first letter (31 M instructions per revision at
// 50,000 keys, callgrind).
#pragma once

#include <cstring>
#include <string_view>

namespace opscope::dialects {

inline bool mentions(std::string_view text, std::string_view word) {
  return memmem(text.data(), text.size(), word.data(), word.size()) != nullptr;
}

} // namespace opscope::dialects
