// Choosing one compression per weight under a size budget (issue 28's `opscope propose`):
// each unit (a weight tensor) offers options, each with its storage in bits and the error it
// leaves (sum of squared differences, so errors add across units and a tensor counts by its
// size); the allocation minimises the total error with the total bits <= the budget.
// The method is the Lagrangian / convex-hull greedy of bit allocation (Shoham and Gersho,
// 1988): on each unit's lower convex hull of (bits, error) take, while the budget allows, the
// step with the most error removed per bit; it is optimal at every hull breakpoint. Between
// breakpoints it can miss, so single-option swaps that fit and lower the error follow, and the
// best uniform choice (the same option everywhere) that fits is kept if it is better still.
// Pure: no I/O; sizes bounded by the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace opscope::resolve {

struct AllocationOption {
  std::int64_t bits = 0;
  double error = 0;
};

// options[k]: option k of this unit, nothing when it cannot take it. Option 0 (the weight
// left as it is) must be there: a uniform choice of an option a unit lacks falls back to it.
struct AllocationUnit {
  std::vector<std::optional<AllocationOption>> options;
};

struct Allocation {
  bool feasible = false;   // false: even the smallest choice of every unit exceeds the budget
  std::vector<int> choice; // per unit, the option index
  std::int64_t bits = 0;
  double error = 0;
};

// The same option everywhere (units lacking it keep option 0).
Allocation uniform_allocation(const std::vector<AllocationUnit>& units, int option);

// The smallest total any choice reaches (each unit at its smallest option).
std::int64_t smallest_bits(const std::vector<AllocationUnit>& units);

// The least total error with total bits <= budget (see above). Infeasible when the budget is
// below smallest_bits(units). Every unit needs option 0; options per unit at most 64.
Allocation allocate_bits(const std::vector<AllocationUnit>& units, std::int64_t budget);

} // namespace opscope::resolve
