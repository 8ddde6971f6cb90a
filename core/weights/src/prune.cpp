#include "prune.h"

#include <algorithm>
#include <cmath>
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

Error pruning_error(const torch::Tensor& weight, const Pruning& p) {
  const std::int64_t elements = weight.numel();
  const auto pruned =
      static_cast<std::int64_t>(std::floor(static_cast<double>(elements) * p.sparsity));
  if (p.channel_axis || !(p.sparsity > 0 && p.sparsity < 1) || pruned == 0)
    return error_of(weight, prune(weight, p));
  const torch::Tensor magnitude = weight.abs().reshape(-1);
  // The pruned-th smallest magnitude: every smaller one is pruned, and as many equal to it as
  // make up the count.
  const double threshold = std::get<0>(torch::kthvalue(magnitude, pruned)).item<double>();
  constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  const torch::Tensor flat = weight.reshape(-1);
  double signal = 0, below = 0;
  std::int64_t count_below = 0;
  for (std::int64_t start = 0; start < elements; start += kChunk) {
    const std::int64_t length = std::min(kChunk, elements - start);
    const torch::Tensor w = flat.narrow(0, start, length).to(torch::kFloat64);
    const torch::Tensor squares = w.square();
    signal += squares.sum().item<double>();
    const torch::Tensor smaller = magnitude.narrow(0, start, length) < threshold;
    below += squares.masked_select(smaller).sum().item<double>();
    count_below += smaller.sum().item<std::int64_t>();
  }
  return error_from_sums(signal,
                         below + static_cast<double>(pruned - count_below) * threshold * threshold);
}

} // namespace opscope::weights
