#include "sliced_error.h"

#include <algorithm>

namespace opscope::weights {
namespace {

// Elements per slab: 4 M (16 MB of float32 per copy fake_quantize makes).
constexpr std::int64_t kSlabElements = std::int64_t{1} << 22;

} // namespace

Error quantization_error(const torch::Tensor& weight, const Quantization& q) {
  const bool rows_independent = weight.dim() >= 1 && !q.block_size.empty() && q.block_size[0] > 0 &&
                                q.block_size[0] < weight.size(0) &&
                                weight.size(0) % q.block_size[0] == 0;
  if (!rows_independent || weight.numel() <= kSlabElements)
    return error_of(weight, fake_quantize(weight, q));
  const std::int64_t row = weight.numel() / weight.size(0);
  const std::int64_t block = q.block_size[0];
  const std::int64_t rows = std::max<std::int64_t>(block, kSlabElements / row / block * block);
  double signal = 0, noise = 0;
  for (std::int64_t start = 0; start < weight.size(0); start += rows) {
    const torch::Tensor slab = weight.narrow(0, start, std::min(rows, weight.size(0) - start));
    const Error part = error_of(slab, fake_quantize(slab, q));
    signal += part.squared_norm;
    noise += part.squared_error;
  }
  return error_from_sums(signal, noise);
}

} // namespace opscope::weights
