// error_of(weight, fake_quantize(weight, q)) with the working memory of a slab of rows rather
// than of the whole tensor, when the quantization's blocks never span axis 0 (per channel on
// axis 0, per block along the last axis: what an LLM's linears get). fake_quantize's float32
// copies are four to seven times a bf16 weight's size; on a 1B model's 525 MB embedding that
// alone would be 3 GB. Each block's range and scale come from its own elements, so a slab's
// result is those rows of the whole tensor's, bit for bit; only the float64 sums add in
// another order. Other granularities (per tensor, axis 1) take the whole tensor at once.
#pragma once

#include "fake_quantize.h"

#include <torch/torch.h>

namespace opscope::weights {

Error quantization_error(const torch::Tensor& weight, const Quantization& q);

} // namespace opscope::weights
