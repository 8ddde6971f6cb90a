// An edit recovered from the texts before and after it, for the readers that keep their last
// read across an edit (local_edit.cpp, python_edit.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <string_view>

namespace opscope::config::detail {

// The edit as the differing middle of the two texts: old [begin, old_end) became
// new [begin, new_end).
struct Splice {
  std::size_t begin = 0;
  std::size_t old_end = 0;
  std::size_t new_end = 0;
};

// Compared in blocks by memcmp, then byte by byte: byte loops over both halves of a 3 MB config
// were 30 M instructions, nearly all of a keystroke's patch (callgrind).
inline Splice find_splice(std::string_view before, std::string_view after) {
  std::size_t n = std::min(before.size(), after.size());
  std::size_t prefix = 0;
  for (std::size_t block : {std::size_t{4096}, std::size_t{64}})
    while (prefix + block <= n &&
           std::memcmp(before.data() + prefix, after.data() + prefix, block) == 0)
      prefix += block;
  while (prefix < n && before[prefix] == after[prefix])
    ++prefix;
  std::size_t limit = n - prefix;
  std::size_t suffix = 0;
  for (std::size_t block : {std::size_t{4096}, std::size_t{64}})
    while (suffix + block <= limit &&
           std::memcmp(before.data() + before.size() - suffix - block,
                       after.data() + after.size() - suffix - block, block) == 0)
      suffix += block;
  while (suffix < limit && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
    ++suffix;
  return {prefix, before.size() - suffix, after.size() - suffix};
}

} // namespace opscope::config::detail
