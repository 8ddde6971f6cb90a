#include "opscope/resolve/bit_allocation.h"

#include <algorithm>
#include <queue>
#include <stdexcept>

namespace opscope::resolve {
namespace {

// Totals from scratch: the greedy's running sums must not drift from what is reported.
void total(const std::vector<AllocationUnit>& units, Allocation& a) {
  a.bits = 0;
  a.error = 0;
  for (std::size_t u = 0; u < units.size(); ++u) {
    const AllocationOption& o = *units[u].options[static_cast<std::size_t>(a.choice[u])];
    a.bits += o.bits;
    a.error += o.error;
  }
}

// The unit's lower convex hull in (bits, error), fewest bits first: option indices whose
// error falls as bits rise, each step removing less error per bit than the one before.
std::vector<int> lower_hull(const AllocationUnit& unit) {
  std::vector<int> order;
  for (std::size_t k = 0; k < unit.options.size(); ++k)
    if (unit.options[k])
      order.push_back(static_cast<int>(k));
  auto at = [&](int k) -> const AllocationOption& {
    return *unit.options[static_cast<std::size_t>(k)];
  };
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return at(a).bits != at(b).bits ? at(a).bits < at(b).bits : at(a).error < at(b).error;
  });
  std::vector<int> hull;
  for (int k : order) {
    if (!hull.empty() && at(k).error >= at(hull.back()).error)
      continue; // more bits for no less error: never worth it
    // Drop the last point while it lies on or above the segment from the one before it to k.
    while (hull.size() >= 2) {
      const AllocationOption& a = at(hull[hull.size() - 2]);
      const AllocationOption& b = at(hull.back());
      const AllocationOption& c = at(k);
      const double cross = static_cast<double>(b.bits - a.bits) * (c.error - a.error) -
                           (b.error - a.error) * static_cast<double>(c.bits - a.bits);
      if (cross > 0)
        break;
      hull.pop_back();
    }
    hull.push_back(k);
  }
  return hull;
}

} // namespace

Allocation uniform_allocation(const std::vector<AllocationUnit>& units, int option) {
  Allocation a;
  for (const AllocationUnit& u : units) {
    const bool has = option >= 0 && static_cast<std::size_t>(option) < u.options.size() &&
                     u.options[static_cast<std::size_t>(option)].has_value();
    a.choice.push_back(has ? option : 0);
  }
  total(units, a);
  a.feasible = true;
  return a;
}

std::int64_t smallest_bits(const std::vector<AllocationUnit>& units) {
  std::int64_t bits = 0;
  for (const AllocationUnit& u : units) {
    std::int64_t least = -1;
    for (const auto& o : u.options)
      if (o && (least < 0 || o->bits < least))
        least = o->bits;
    bits += least;
  }
  return bits;
}

Allocation allocate_bits(const std::vector<AllocationUnit>& units, std::int64_t budget) {
  for (const AllocationUnit& u : units)
    if (u.options.empty() || !u.options[0] || u.options.size() > 64)
      throw std::invalid_argument("every unit needs option 0 and at most 64 options");
  Allocation best;
  if (smallest_bits(units) > budget)
    return best;

  // The greedy on the hulls: every unit at its cheapest hull point, then the steepest steps.
  std::vector<std::vector<int>> hulls;
  std::vector<std::size_t> at(units.size(), 0);
  Allocation a;
  for (const AllocationUnit& u : units) {
    hulls.push_back(lower_hull(u));
    a.choice.push_back(hulls.back().front());
  }
  total(units, a);
  auto option = [&](std::size_t u, std::size_t h) -> const AllocationOption& {
    return *units[u].options[static_cast<std::size_t>(hulls[u][h])];
  };
  using Step = std::pair<double, std::size_t>; // error removed per bit, unit
  std::priority_queue<Step> steps;
  auto push_next = [&](std::size_t u) {
    if (at[u] + 1 >= hulls[u].size())
      return;
    const AllocationOption& now = option(u, at[u]);
    const AllocationOption& next = option(u, at[u] + 1);
    steps.push({(now.error - next.error) / static_cast<double>(next.bits - now.bits), u});
  };
  for (std::size_t u = 0; u < units.size(); ++u)
    push_next(u);
  while (!steps.empty()) {
    const std::size_t u = steps.top().second;
    steps.pop();
    const std::int64_t more = option(u, at[u] + 1).bits - option(u, at[u]).bits;
    if (a.bits + more > budget)
      continue; // its later steps cost more still: this unit is done
    a.bits += more;
    a.error += option(u, at[u] + 1).error - option(u, at[u]).error;
    a.choice[u] = hulls[u][++at[u]];
    push_next(u);
  }

  // Swaps of one unit's option (off the hull too) that fit and lower the error, best first;
  // bounded: each pass fixes one unit, and a unit's error only falls.
  for (std::size_t pass = 0; pass < units.size() * 4 + 4; ++pass) {
    double gain = 0;
    std::size_t best_unit = 0;
    int best_option = -1;
    for (std::size_t u = 0; u < units.size(); ++u) {
      const AllocationOption& now = *units[u].options[static_cast<std::size_t>(a.choice[u])];
      for (std::size_t k = 0; k < units[u].options.size(); ++k) {
        const auto& o = units[u].options[k];
        if (o && a.bits - now.bits + o->bits <= budget && now.error - o->error > gain) {
          gain = now.error - o->error;
          best_unit = u;
          best_option = static_cast<int>(k);
        }
      }
    }
    if (best_option < 0)
      break;
    a.choice[best_unit] = best_option;
    total(units, a);
  }
  total(units, a);
  a.feasible = true;
  best = a;

  // The best uniform choice that fits, when the greedy stopped short of it.
  std::size_t width = 0;
  for (const AllocationUnit& u : units)
    width = std::max(width, u.options.size());
  for (std::size_t k = 0; k < width; ++k) {
    Allocation same = uniform_allocation(units, static_cast<int>(k));
    if (same.bits <= budget && same.error < best.error)
      best = same;
  }
  return best;
}

} // namespace opscope::resolve
