// The budgeted choice behind `opscope propose` (opscope/resolve/bit_allocation.h).
#include "opscope/resolve/bit_allocation.h"

#include <gtest/gtest.h>

#include <random>

namespace opscope::resolve {
namespace {

AllocationUnit unit(std::vector<std::optional<AllocationOption>> options) {
  return AllocationUnit{std::move(options)};
}

// Option 0 full precision (32 bits a weight, no error), 1 eight bits, 2 four bits, for a
// tensor of `n` weights whose rounding error is `scale` per weight at 4 bits.
AllocationUnit tensor(std::int64_t n, double scale) {
  return unit({AllocationOption{32 * n, 0}, AllocationOption{8 * n, scale * n / 256},
               AllocationOption{4 * n, scale * n}});
}

TEST(BitAllocation, SpendsTheBitsWhereTheErrorIs) {
  // Two tensors of the same size; the second loses 100x more at 4 bits. A budget of
  // 6 bits a weight: 8 bits for the sensitive one, 4 for the other.
  const std::vector<AllocationUnit> units = {tensor(1000, 1), tensor(1000, 100)};
  const Allocation a = allocate_bits(units, 12000);
  ASSERT_TRUE(a.feasible);
  EXPECT_EQ(a.choice, (std::vector<int>{2, 1}));
  EXPECT_EQ(a.bits, 12000);
  // Better than the only uniform choice that fits (4 bits everywhere).
  const Allocation four = uniform_allocation(units, 2);
  EXPECT_LT(a.error, four.error / 10);
}

TEST(BitAllocation, BelowTheSmallestChoiceIsInfeasible) {
  const std::vector<AllocationUnit> units = {tensor(1000, 1), tensor(10, 1)};
  EXPECT_EQ(smallest_bits(units), 4040);
  EXPECT_FALSE(allocate_bits(units, 4039).feasible);
  EXPECT_TRUE(allocate_bits(units, 4040).feasible);
}

TEST(BitAllocation, AnOptionAUnitLacksFallsBackToOptionZeroWhenUniform) {
  const std::vector<AllocationUnit> units = {
      tensor(100, 1), unit({AllocationOption{3200, 0}, AllocationOption{800, 0.5}, std::nullopt})};
  const Allocation four = uniform_allocation(units, 2);
  EXPECT_EQ(four.choice, (std::vector<int>{2, 0}));
  EXPECT_EQ(four.bits, 400 + 3200);
}

TEST(BitAllocation, NeverWorseThanAUniformChoiceThatFitsAndNeverOverBudget) {
  std::mt19937 random(28);
  std::uniform_int_distribution<int> size(1, 5000);
  std::uniform_real_distribution<double> sensitivity(0.01, 100);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<AllocationUnit> units;
    const int count = 1 + trial % 12;
    for (int i = 0; i < count; ++i) {
      const std::int64_t n = size(random);
      const double s = sensitivity(random);
      // Blocked four-bit options: more bits (a scale per block), less error.
      units.push_back(
          unit({AllocationOption{32 * n, 0}, AllocationOption{8 * n, s * n / 256},
                AllocationOption{4 * n, s * n}, AllocationOption{4 * n + n / 2, s * n * 0.6},
                AllocationOption{4 * n + n / 4, s * n * 0.75}}));
    }
    const Allocation floor = uniform_allocation(units, 2);
    const Allocation full = uniform_allocation(units, 0);
    for (double f : {0.0, 0.1, 0.3, 0.5, 0.9}) {
      const auto budget =
          floor.bits + static_cast<std::int64_t>(f * static_cast<double>(full.bits - floor.bits));
      const Allocation a = allocate_bits(units, budget);
      ASSERT_TRUE(a.feasible);
      EXPECT_LE(a.bits, budget);
      for (int k = 0; k < 5; ++k) {
        const Allocation same = uniform_allocation(units, k);
        if (same.bits <= budget) {
          EXPECT_LE(a.error, same.error) << "trial " << trial << " option " << k;
        }
      }
    }
  }
}

TEST(BitAllocation, MatchesExhaustiveSearchOnASmallModel) {
  // Three tensors, every budget from the smallest to full precision in steps of 64 bits:
  // the same error as the best of all 27 combinations.
  const std::vector<AllocationUnit> units = {tensor(64, 3), tensor(256, 0.5), tensor(32, 40)};
  for (std::int64_t budget = 1408; budget <= 11264; budget += 64) {
    const Allocation a = allocate_bits(units, budget);
    double best = 1e300;
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y)
        for (int z = 0; z < 3; ++z) {
          const Allocation c = [&] {
            Allocation e;
            e.choice = {x, y, z};
            e.bits = units[0].options[static_cast<std::size_t>(x)]->bits +
                     units[1].options[static_cast<std::size_t>(y)]->bits +
                     units[2].options[static_cast<std::size_t>(z)]->bits;
            e.error = units[0].options[static_cast<std::size_t>(x)]->error +
                      units[1].options[static_cast<std::size_t>(y)]->error +
                      units[2].options[static_cast<std::size_t>(z)]->error;
            return e;
          }();
          if (c.bits <= budget)
            best = std::min(best, c.error);
        }
    EXPECT_DOUBLE_EQ(a.error, best) << "budget " << budget;
  }
}

} // namespace
} // namespace opscope::resolve
