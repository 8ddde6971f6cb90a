// coreai-opt 0.4.0's magnitude pruning of one weight at its target sparsity
// (pruning/spec/prune.py, _MagnitudePruneImpl.compute_mask; prepare() computes the mask on
// its forward pass, and a sparsity_schedule ends at the same target): weight * mask, where
//  - unstructured: the numel - floor(numel * sparsity) largest |w| are kept (torch.topk);
//  - channel_structured: the channels along `axis` with the largest L1 norms are kept, all
//    but floor(channels * sparsity) of them.
// Which of equal magnitudes topk keeps does not change the error.
#pragma once

#include "fake_quantize.h"

#include <torch/torch.h>

#include <optional>

namespace opscope::weights {

struct Pruning {
  double sparsity = 0.5;
  std::optional<int> channel_axis; // nothing: unstructured
};

torch::Tensor prune(const torch::Tensor& weight, const Pruning& p);

// error_of(weight, prune(weight, p)) without the mask: unstructured pruning zeroes the
// floor(numel * sparsity) smallest |w|, whichever of equal ones topk leaves, so its error is
// their sum of squares, found with a selection by histograms instead of a topk of half the
// weight and its copies.
Error pruning_error(const torch::Tensor& weight, const Pruning& p);

} // namespace opscope::weights
