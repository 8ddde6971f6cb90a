#include "palettize.h"

#include "kmeans1d.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace opscope::weights {
namespace {

// The k x n tables of an exact clustering of every element: 32 M entries (512 MB) at most.
constexpr std::int64_t kMaxTableEntries = std::int64_t{1} << 25;
constexpr double kHalfMax = 65504.0; // np.finfo(np.float16).max

std::vector<double> doubles_of(const torch::Tensor& t) {
  const torch::Tensor d = t.to(torch::kFloat64).contiguous();
  return {d.data_ptr<double>(), d.data_ptr<double>() + d.numel()};
}

// Fast mode's rounded values are integers over 10^rounding_precision: when they span at most
// this many integers, they are counted in bins rather than sorted (np.unique's work), and each
// element looks its centroid up by its bin (GPT-2's 38.6 M-element head: 4 s of sort).
constexpr std::int64_t kMaxBins = std::int64_t{1} << 22;
constexpr std::int64_t kChunk = std::int64_t{1} << 20;

// Fast mode's rounding of `flat` (float32) from `start`: round(float16(w) * scale), an
// integer-valued float32, a chunk at a time so no rounded copy of the weight is kept.
torch::Tensor rounded_chunk(const torch::Tensor& flat, std::int64_t start, float scale) {
  torch::Tensor r = flat.narrow(0, start, std::min(kChunk, flat.numel() - start))
                        .to(torch::kFloat16)
                        .to(torch::kFloat32);
  r.mul_(scale).round_();
  return r;
}

// _reduce_weights_to_cluster and _kmeans1d.cluster by bins: the rounded values of `flat` lie
// from `low` to `low + bins - 1`. The distinct values are the bins' integers divided by
// scale, as the sort would give them (equal quotients merged), weighted by their counts.
torch::Tensor cluster_by_bins(const torch::Tensor& flat, float scale, double low, std::int64_t bins,
                              std::int64_t clusters, c10::ScalarType dtype) {
  auto bin_of = [&](std::int64_t start) {
    return (rounded_chunk(flat, start, scale) - low).to(torch::kInt64);
  };
  torch::Tensor counts = torch::zeros({bins}, torch::kInt64);
  for (std::int64_t start = 0; start < flat.numel(); start += kChunk)
    counts.add_(torch::bincount(bin_of(start), {}, bins));
  const torch::Tensor present = torch::nonzero(counts).reshape(-1); // ascending
  torch::Tensor values = (present.to(torch::kFloat64) + low).to(torch::kFloat32);
  values.div_(scale); // the same kernel as the rounding's division
  auto [distinct, inverse, unused] = torch::unique_consecutive(values, /*return_inverse=*/true);
  const torch::Tensor weights = torch::zeros({distinct.numel()}, torch::kInt64)
                                    .index_add_(0, inverse, counts.index_select(0, present));
  const Clustered c =
      cluster_1d(doubles_of(distinct), doubles_of(weights), static_cast<std::size_t>(clusters));
  const torch::Tensor per_distinct =
      torch::tensor(c.centroids, torch::kFloat64)
          .to(dtype)
          .index_select(
              0, torch::tensor(std::vector<std::int64_t>(c.clusters.begin(), c.clusters.end())));
  torch::Tensor table = torch::zeros({bins}, torch::TensorOptions().dtype(dtype));
  table.index_copy_(0, present, per_distinct.index_select(0, inverse));
  torch::Tensor out = torch::empty({flat.numel()}, table.options());
  for (std::int64_t start = 0; start < flat.numel(); start += kChunk)
    out.narrow(0, start, std::min(kChunk, flat.numel() - start))
        .copy_(table.index_select(0, bin_of(start)));
  return out;
}

// _cluster_weights_1d: the block's palettized values (in `dtype`, the block's shape).
torch::Tensor cluster_block(const torch::Tensor& block, const Palettization& p,
                            c10::ScalarType dtype) {
  const std::int64_t clusters = std::int64_t{1} << p.n_bits;
  const torch::Tensor flat = block.reshape(-1).to(torch::kFloat32);
  const bool half = dtype == torch::kFloat16;
  const bool fast = half || (p.fast_kmeans && flat.max().item<double>() <= kHalfMax &&
                             flat.min().item<double>() >= -kHalfMax);
  torch::Tensor centroids, assignment;
  if (fast) { // _reduce_weights_to_cluster
    torch::Tensor reduced = flat;
    if (p.fast_kmeans) { // in place: the same kernels, one float32 copy instead of four
      const float scale = static_cast<float>(std::pow(10.0, p.rounding_precision));
      double low = std::numeric_limits<double>::infinity(), high = -low;
      bool nan = false;
      for (std::int64_t start = 0; start < flat.numel(); start += kChunk) {
        const torch::Tensor r = rounded_chunk(flat, start, scale);
        const double chunk_low = r.min().item<double>(), chunk_high = r.max().item<double>();
        nan = nan || std::isnan(chunk_low) || std::isnan(chunk_high);
        low = std::min(low, chunk_low);
        high = std::max(high, chunk_high);
      }
      if (!nan && high - low < static_cast<double>(kMaxBins))
        return cluster_by_bins(flat, scale, low, static_cast<std::int64_t>(high - low) + 1,
                               clusters, dtype)
            .view(block.sizes());
      reduced = flat.to(torch::kFloat16).to(torch::kFloat32);
      reduced.mul_(scale).round_().div_(scale);
    }
    auto [values, unused, counts] =
        torch::_unique2(reduced, /*sorted=*/true, /*return_inverse=*/false, /*return_counts=*/true);
    const Clustered c =
        cluster_1d(doubles_of(values), doubles_of(counts), static_cast<std::size_t>(clusters));
    centroids = torch::tensor(c.centroids, torch::kFloat64);
    // The distinct values are sorted and each cluster is a run of them (1-D optimal k-means),
    // so a value's cluster is how many runs start at or below it: bucketize over the runs'
    // first values, in int32, instead of an int64 inverse the size of the weight.
    std::vector<float> starts;
    const torch::Tensor sorted = values.contiguous();
    const float* v = sorted.data_ptr<float>();
    for (std::size_t i = 1; i < c.clusters.size(); ++i) {
      if (c.clusters[i] == c.clusters[i - 1])
        continue;
      if (c.clusters[i] != c.clusters[i - 1] + 1)
        throw std::logic_error("k-means gave clusters that are not runs of sorted values");
      starts.push_back(v[i]);
    }
    assignment = torch::bucketize(reduced, torch::tensor(starts), /*out_int32=*/true,
                                  /*right=*/true);
  } else {
    if (clusters * flat.numel() > kMaxTableEntries)
      throw std::invalid_argument(
          "a block of " + std::to_string(flat.numel()) +
          " values outside float16's range is clustered exactly (coreai-opt keeps two 2^n_bits "
          "x values tables); more than opscope-weights computes");
    const Clustered c = cluster_1d(doubles_of(flat), {}, static_cast<std::size_t>(clusters));
    assignment = torch::tensor(std::vector<std::int64_t>(c.clusters.begin(), c.clusters.end()));
    centroids = torch::tensor(c.centroids, torch::kFloat64);
  }
  // centroids.to(weight.dtype), then the lookup in that dtype.
  return centroids.to(dtype).index_select(0, assignment).view(block.sizes());
}

// _existing_palette: the block's values as they are when it holds at most 2^n_bits of them.
// Its first 8 x 2^n_bits values are looked at first, as coreai-opt's probe does: a weight
// that is no palette says so without a pass over all of it.
bool holds_a_palette(const torch::Tensor& block, int n_bits) {
  const std::int64_t clusters = std::int64_t{1} << n_bits;
  const torch::Tensor flat = block.reshape(-1);
  auto distinct = [](const torch::Tensor& t) {
    return std::get<0>(torch::_unique2(t, /*sorted=*/false)).numel();
  };
  return distinct(flat.narrow(0, 0, std::min(flat.numel(), 8 * clusters))) <= clusters &&
         distinct(flat) <= clusters;
}

} // namespace

torch::Tensor palettize(const torch::Tensor& weight, const Palettization& p) {
  if (p.n_bits < 1 || p.n_bits > 8)
    throw std::invalid_argument("n_bits " + std::to_string(p.n_bits) + " is not 1..8");
  if (p.rounding_precision < -30 || p.rounding_precision > 30)
    throw std::invalid_argument("rounding_precision " + std::to_string(p.rounding_precision) +
                                " is not within -30..30");
  // In the weight's dtype throughout, as prepare() holds it; only k-means reads float32.
  const c10::ScalarType dtype = weight.scalar_type();
  torch::Tensor work = weight.contiguous();
  torch::Tensor scale;
  if (p.per_channel_scale) { // _scale_by_per_channel_scale
    if (weight.dim() < 2)
      throw std::invalid_argument("enable_per_channel_scale needs a weight of 2 axes or more");
    const torch::Tensor rows = work.flatten(1);
    scale = std::get<0>(torch::max(torch::abs(rows), 1, /*keepdim=*/true));
    scale.masked_fill_(scale == 0, 1);
    work = (rows / scale).reshape(weight.sizes());
  }
  std::vector<torch::Tensor> blocks;
  int axis = 0;
  if (p.group_size > 0) {
    axis = p.axis;
    if (axis < 0 || axis >= weight.dim() || weight.size(axis) % p.group_size != 0)
      throw std::invalid_argument("per_grouped_channel group_size " + std::to_string(p.group_size) +
                                  " does not divide axis " + std::to_string(p.axis));
    for (std::int64_t start = 0; start < weight.size(axis); start += p.group_size)
      blocks.push_back(work.narrow(axis, start, p.group_size));
  } else {
    blocks.push_back(work);
  }
  if (blocks.size() == 1 && !holds_a_palette(blocks.front(), p.n_bits)) {
    torch::Tensor out = cluster_block(blocks.front(), p, dtype);
    return p.per_channel_scale ? (out.flatten(1) * scale).reshape(weight.sizes()) : out;
  }
  torch::Tensor out = torch::empty_like(work);
  bool leading = true; // palettes are reused only up to the first block that holds none
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    leading = leading && holds_a_palette(blocks[i], p.n_bits);
    const std::int64_t extent = blocks[i].size(axis);
    out.narrow(axis, static_cast<std::int64_t>(i) * extent, extent)
        .copy_(leading ? blocks[i] : cluster_block(blocks[i], p, dtype));
  }
  if (p.per_channel_scale) // _unscale_by_per_channel_scale
    out = (out.flatten(1) * scale).reshape(weight.sizes());
  return out;
}

} // namespace opscope::weights
