// "Did you mean": the real names closest to one that matched nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opscope::index {

// Levenshtein distance (bytes).
int edit_distance(std::string_view a, std::string_view b);

// Up to `limit` candidates closest to `wanted`, nearest first (ties by name), keeping only
// plausible ones: within max(2, |wanted| / 3) edits. Duplicates in `candidates` are ignored.
std::vector<std::string> nearest_names(std::string_view wanted,
                                       const std::vector<std::string>& candidates,
                                       size_t limit = 3);

} // namespace opscope::index
