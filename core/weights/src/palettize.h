// coreai-opt 0.4.0's scalar KMeans palettization of one weight, as prepare() leaves it
// (palettization/kmeans/kmeans_fake_palettize.py, _KMeansFakePalettize: _cluster_to_centroids
// then hard_assign with the indices k-means gave):
//  - enable_per_channel_scale: each output row (axis 0, the weight flattened from axis 1)
//    divided by its largest |w| (0 -> 1) before clustering, multiplied back after;
//  - blocks: the whole tensor (per_tensor), or group_size slices along `axis`
//    (per_grouped_channel; the conv reshapes keep each block's elements, so slicing the
//    weight itself gives the same sets);
//  - leading blocks holding at most 2^n_bits distinct values keep them (_existing_palette);
//  - a block in float16's range (enable_fast_kmeans_mode) is cast to float16, rounded to
//    rounding_precision decimals in float32, reduced to its distinct values weighted by their
//    counts, and clustered (kmeans1d.h); otherwise every element is clustered;
//  - each element becomes its cluster's centroid, cast to the weight's dtype.
// Vector palettization (cluster_dim > 1: k-means++ with random restarts), a quantized LUT and
// joint sparsity are not computed (the request says so before the worker runs).
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace opscope::weights {

struct Palettization {
  int n_bits = 4;
  int axis = 0;                // per_grouped_channel's axis (0 or 1)
  std::int64_t group_size = 0; // 0: per_tensor
  bool per_channel_scale = false;
  bool fast_kmeans = true;
  int rounding_precision = 4;
};

// The weight as prepare()'s fake palettization returns it. Throws std::invalid_argument when
// the spec does not fit the weight (prepare() disables it then) or a block is too large to
// cluster without fast mode (coreai-opt keeps two 2^n_bits x elements tables).
torch::Tensor palettize(const torch::Tensor& weight, const Palettization& p);

} // namespace opscope::weights
