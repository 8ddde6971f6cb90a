#include "fake_quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace opscope::weights {
namespace {

// torchao's _get_reduction_params: an axis blocked by less than its size is split into
// (blocks, block) and reduced over the block; an axis blocked by its size is reduced whole.
void reduction_params(const std::vector<std::int64_t>& block, c10::IntArrayRef sizes,
                      std::vector<std::int64_t>& shape, std::vector<std::int64_t>& dims) {
  std::int64_t cur = 0;
  for (std::size_t i = 0; i < block.size(); ++i) {
    if (block[i] != sizes[i] && block[i] > 1) {
      shape.push_back(sizes[i] / block[i]);
      shape.push_back(block[i]);
      dims.push_back(cur + 1);
      cur += 2;
    } else {
      shape.push_back(sizes[i]);
      if (block[i] != 1)
        dims.push_back(cur);
      cur += 1;
    }
  }
}

} // namespace

torch::Tensor fake_quantize(const torch::Tensor& weight, const Quantization& q) {
  if (static_cast<std::size_t>(weight.dim()) != q.block_size.size())
    throw std::invalid_argument("the block size has " + std::to_string(q.block_size.size()) +
                                " axes and the weight " + std::to_string(weight.dim()));
  for (std::size_t i = 0; i < q.block_size.size(); ++i)
    if (q.block_size[i] <= 0 || weight.size(static_cast<std::int64_t>(i)) % q.block_size[i] != 0)
      throw std::invalid_argument("block size " + std::to_string(q.block_size[i]) +
                                  " does not divide axis " + std::to_string(i));
  std::vector<std::int64_t> blockwise, dims;
  reduction_params(q.block_size, weight.sizes(), blockwise, dims);
  std::vector<std::int64_t> reduced = blockwise;
  for (std::int64_t d : dims)
    reduced[static_cast<std::size_t>(d)] = 1;

  // The range, as the weight's dtype holds it.
  torch::Tensor min_val, max_val;
  if (dims.empty()) {
    min_val = max_val = weight.view(blockwise);
  } else {
    torch::Tensor view = weight.view(blockwise);
    min_val = torch::amin(view, dims, /*keepdim=*/true);
    max_val = torch::amax(view, dims, /*keepdim=*/true);
  }
  min_val = torch::clamp(min_val, c10::nullopt, 0);
  max_val = torch::clamp(max_val, 0, c10::nullopt);

  // choose_qparams_affine_with_min_max.
  const double eps = std::numeric_limits<float>::epsilon();
  const torch::Tensor min_neg = torch::min(min_val, torch::zeros_like(min_val));
  const torch::Tensor max_pos = torch::max(max_val, torch::zeros_like(max_val));
  torch::Tensor scale, zero_point;
  const bool symmetric = q.qscheme != "asymmetric";
  if (symmetric) {
    scale = torch::max(-min_neg, max_pos) / (static_cast<double>(q.quant_max - q.quant_min) / 2);
    // Python's int((quant_max + quant_min + 1) / 2): true division, truncated.
    const auto middle = static_cast<std::int64_t>(
        std::trunc(static_cast<double>(q.quant_max + q.quant_min + 1) / 2));
    zero_point = torch::full_like(scale, static_cast<double>(middle));
    scale = torch::clamp(scale, eps, c10::nullopt);
  } else {
    scale = (max_pos - min_neg) / static_cast<double>(q.quant_max - q.quant_min);
    scale = torch::clamp(scale, eps, c10::nullopt);
    zero_point = static_cast<double>(q.quant_min) - torch::round(min_neg / scale);
    zero_point = torch::clamp(zero_point, q.quant_min, q.quant_max);
  }
  zero_point = zero_point.to(torch::kInt32);
  scale = scale.to(min_val.scalar_type());

  // _qdq_int in float32.
  torch::Tensor tensor = weight.to(torch::kFloat32).view(blockwise);
  torch::Tensor quant_offset, float_offset;
  if (q.formulation == "minval") {
    torch::Tensor minval = symmetric ? -torch::max(torch::abs(min_val), torch::abs(max_val))
                                     : torch::min(min_val, torch::zeros_like(min_val));
    quant_offset = torch::full({}, q.quant_min, torch::TensorOptions().dtype(torch::kInt32));
    float_offset = minval.view(reduced).to(torch::kFloat32);
  } else {
    quant_offset = zero_point.view(reduced);
    float_offset = torch::zeros({}, tensor.options());
  }
  scale = scale.view(reduced);
  torch::Tensor result = (tensor - float_offset) / scale;
  result.round_();
  result.add_(quant_offset);
  result.clamp_(q.quant_min, q.quant_max);
  // The same ops in place: one tensor of the weight's size instead of three more.
  result.sub_(quant_offset).mul_(scale).add_(float_offset);
  return result.view(weight.sizes()).to(weight.scalar_type());
}

torch::Tensor fold_norm(const torch::Tensor& weight, const torch::Tensor& gamma,
                        const torch::Tensor& running_var, double eps, int axis) {
  if (weight.dim() < 2 || axis < 0 || axis > 1 || gamma.numel() != weight.size(axis) ||
      running_var.numel() != weight.size(axis))
    throw std::invalid_argument("its batch norm's gamma and running_var do not match its "
                                "output channels");
  std::vector<std::int64_t> shape(static_cast<std::size_t>(weight.dim()), 1);
  shape[static_cast<std::size_t>(axis)] = -1;
  const torch::Tensor scale = gamma / torch::sqrt(running_var + eps);
  return (weight * scale.reshape(shape)).to(weight.scalar_type()).contiguous();
}

Error error_from_sums(double signal, double noise) {
  Error e;
  e.squared_error = noise;
  e.squared_norm = signal;
  e.sqnr_db =
      noise == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(signal / noise);
  e.relative_error = signal == 0 ? (noise == 0 ? 0 : std::numeric_limits<double>::infinity())
                                 : std::sqrt(noise / signal);
  return e;
}

Error error_of(const torch::Tensor& weight, const torch::Tensor& quantized) {
  // In float64, a million elements at a time: float64 copies of a whole embedding would be
  // four times its size.
  constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  const torch::Tensor w_all = weight.reshape(-1), q_all = quantized.reshape(-1);
  double signal = 0, noise = 0;
  for (std::int64_t start = 0; start < w_all.numel(); start += kChunk) {
    const std::int64_t length = std::min(kChunk, w_all.numel() - start);
    const torch::Tensor w = w_all.narrow(0, start, length).to(torch::kFloat64);
    signal += w.square().sum().item<double>();
    noise += (w - q_all.narrow(0, start, length).to(torch::kFloat64)).square().sum().item<double>();
  }
  return error_from_sums(signal, noise);
}

} // namespace opscope::weights
