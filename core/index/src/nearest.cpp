#include "opscope/index/nearest.h"

#include <algorithm>
#include <numeric>

namespace opscope::index {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest_names(std::string_view wanted,
                                       const std::vector<std::string>& candidates, size_t limit) {
  const int budget = std::max<int>(2, static_cast<int>(wanted.size()) / 3);
  std::vector<std::pair<int, std::string>> scored;
  for (const auto& name : candidates) {
    // Lengths alone bound the distance: skip hopeless candidates cheaply.
    int length_gap = std::abs(static_cast<int>(name.size()) - static_cast<int>(wanted.size()));
    if (length_gap > budget)
      continue;
    int distance = edit_distance(wanted, name);
    if (distance <= budget)
      scored.emplace_back(distance, name);
  }
  std::sort(scored.begin(), scored.end());
  scored.erase(std::unique(scored.begin(), scored.end()), scored.end());
  std::vector<std::string> out;
  for (auto& [distance, name] : scored) {
    if (out.size() == limit)
      break;
    out.push_back(std::move(name));
  }
  return out;
}

} // namespace opscope::index
