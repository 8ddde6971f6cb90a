#include "prune.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace opscope::weights {

torch::Tensor prune(const torch::Tensor& weight, const Pruning& p) {
  if (!(p.sparsity >= 0 && p.sparsity <= 1))
    throw std::invalid_argument("target_sparsity " + std::to_string(p.sparsity) +
                                " is not in [0, 1]");
  if (p.sparsity == 0)
    return weight;
  if (p.sparsity >= 1)
    return torch::zeros_like(weight);
  if (!p.channel_axis) {
    const std::int64_t elements = weight.numel();
    const auto keep = elements - static_cast<std::int64_t>(
                                     std::floor(static_cast<double>(elements) * p.sparsity));
    const torch::Tensor kept = std::get<1>(torch::topk(weight.abs().reshape(-1), keep));
    torch::Tensor mask = torch::zeros({elements}, weight.options());
    mask.index_fill_(0, kept, 1);
    return weight * mask.view(weight.sizes());
  }
  int axis = *p.channel_axis;
  if (axis < -weight.dim() || axis >= weight.dim())
    throw std::invalid_argument("channel_structured axis " + std::to_string(axis) +
                                " is not one of the weight's " + std::to_string(weight.dim()));
  axis = axis < 0 ? axis + static_cast<int>(weight.dim()) : axis;
  const std::int64_t channels = weight.size(axis);
  const auto pruned =
      static_cast<std::int64_t>(std::floor(static_cast<double>(channels) * p.sparsity));
  if (pruned == 0)
    return weight;
  if (pruned >= channels)
    return torch::zeros_like(weight);
  std::vector<std::int64_t> reduce;
  for (std::int64_t d = 0; d < weight.dim(); ++d)
    if (d != axis)
      reduce.push_back(d);
  const torch::Tensor norms = weight.abs().sum(reduce);
  const torch::Tensor kept = std::get<1>(torch::topk(norms, channels - pruned));
  torch::Tensor mask = torch::zeros({channels}, weight.options());
  mask.index_fill_(0, kept, 1);
  std::vector<std::int64_t> shape(static_cast<std::size_t>(weight.dim()), 1);
  shape[static_cast<std::size_t>(axis)] = channels;
  return weight * mask.view(shape);
}

namespace {

constexpr std::int64_t kChunk = std::int64_t{1} << 20;

// The k-th smallest |w| (1-based), as kthvalue gives it, without kthvalue's copies (the
// values and an int64 index per element: 5x a float32 weight). |w| in float32 (exact for the
// dtypes weights have) is ordered as its bit pattern, a non-negative int32, so one histogram of
// the high 16 bits and one of the low 16 bits within the k-th's high bin find it, a million
// elements at a time.
float kth_smallest_magnitude(const torch::Tensor& flat, std::int64_t k) {
  constexpr std::int64_t kBins = 1 << 16;
  const std::int64_t n = flat.numel();
  auto bits_of = [&](std::int64_t start) {
    return flat.narrow(0, start, std::min(kChunk, n - start))
        .abs()
        .to(torch::kFloat32)
        .contiguous()
        .view(torch::kInt32);
  };
  // The bin holding the rank-th element of a histogram, and the rank within it.
  auto find = [](const torch::Tensor& histogram, std::int64_t& rank) {
    const torch::Tensor cumulative = histogram.cumsum(0);
    const std::int64_t bin = (cumulative < rank).sum().item<std::int64_t>();
    if (bin > 0)
      rank -= cumulative[bin - 1].item<std::int64_t>();
    return bin;
  };
  torch::Tensor high = torch::zeros({kBins}, torch::kInt64);
  for (std::int64_t start = 0; start < n; start += kChunk)
    high.add_(torch::bincount(bits_of(start).bitwise_right_shift(16), {}, kBins));
  std::int64_t rank = k;
  const std::int64_t high_bin = find(high, rank);
  torch::Tensor low = torch::zeros({kBins}, torch::kInt64);
  for (std::int64_t start = 0; start < n; start += kChunk) {
    const torch::Tensor bits = bits_of(start);
    low.add_(torch::bincount(
        bits.masked_select(bits.bitwise_right_shift(16) == high_bin).bitwise_and(0xFFFF), {},
        kBins));
  }
  const std::int64_t low_bin = find(low, rank);
  const auto pattern = static_cast<std::uint32_t>((high_bin << 16) | low_bin);
  float value = 0;
  std::memcpy(&value, &pattern, sizeof value);
  return value;
}

} // namespace

Error pruning_error(const torch::Tensor& weight, const Pruning& p) {
  const std::int64_t elements = weight.numel();
  const auto pruned =
      static_cast<std::int64_t>(std::floor(static_cast<double>(elements) * p.sparsity));
  if (p.channel_axis || !(p.sparsity > 0 && p.sparsity < 1) || pruned == 0)
    return error_of(weight, prune(weight, p));
  const torch::Tensor flat = weight.reshape(-1);
  // The pruned-th smallest magnitude: every smaller one is pruned, and as many equal to it as
  // make up the count.
  const double threshold = kth_smallest_magnitude(flat, pruned);
  double signal = 0, below = 0;
  std::int64_t count_below = 0;
  for (std::int64_t start = 0; start < elements; start += kChunk) {
    const torch::Tensor w =
        flat.narrow(0, start, std::min(kChunk, elements - start)).to(torch::kFloat64);
    const torch::Tensor squares = w.square();
    signal += squares.sum().item<double>();
    const torch::Tensor smaller = w.abs() < threshold;
    below += squares.masked_select(smaller).sum().item<double>();
    count_below += smaller.sum().item<std::int64_t>();
  }
  return error_from_sums(signal,
                         below + static_cast<double>(pruned - count_below) * threshold * threshold);
}

} // namespace opscope::weights
