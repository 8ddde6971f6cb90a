// coreai-opt 0.4.0's weight fake quantization, op for op in ATen, so the result is the one
// prepare()'s fake-quant module returns for the same tensor:
//  - the range (range_calculator.py MinMaxRangeCalculator, torchao's _get_reduction_params):
//    amin / amax over each block, clamped to include 0 (qparams_calculator.py
//    _get_min_and_max_val);
//  - scale and zero point (torchao choose_qparams_affine_with_min_max with eps = float32's
//    eps; minval for the MINVAL formulation) in the weight's dtype;
//  - fake_quantize.py _qdq_int in float32: round((x - float_offset) / scale) + quant_offset,
//    clamped, then (q - quant_offset) * scale + float_offset, cast back to the weight's dtype.
// ATen's fake_quantize_per_{tensor,channel}_affine multiply by 1/scale and know neither
// blocks nor MINVAL, so they are not used: a rounding tie would land elsewhere.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace opscope::weights {

struct Quantization {
  std::string qscheme;     // symmetric | asymmetric | symmetric_with_clipping
  std::string formulation; // zp | minval
  std::int64_t quant_min = 0;
  std::int64_t quant_max = 0;
  std::vector<std::int64_t> block_size; // one per axis of the weight
};

// The weight as prepare()'s fake-quant returns it. `weight` is contiguous and floating.
torch::Tensor fake_quantize(const torch::Tensor& weight, const Quantization& q);

// A conv weight scaled by the batch norm after it, as prepare()'s conv-bn rewrite feeds it to
// the weight fake-quant (coreai-opt's _compute_fused_conv_bn_params, the same fp32 order):
// (weight * (gamma / sqrt(running_var + eps)).reshape(per output channel)).to(weight's dtype).
torch::Tensor fold_norm(const torch::Tensor& weight, const torch::Tensor& gamma,
                        const torch::Tensor& running_var, double eps, int axis);

struct Error {
  double sqnr_db = 0;        // 10 log10(|w|^2 / |w - q(w)|^2); +inf when nothing is lost
  double relative_error = 0; // |w - q(w)| / |w|
  double squared_error = 0;  // |w - q(w)|^2: adds across tensors (opscope propose's measure)
  double squared_norm = 0;   // |w|^2
};

// The error of a weight from its sums of squares (|w|^2, |w - q(w)|^2), which add across its
// parts.
Error error_from_sums(double squared_norm, double squared_error);
// Both from sums of squares in float64.
Error error_of(const torch::Tensor& weight, const torch::Tensor& quantized);

} // namespace opscope::weights
