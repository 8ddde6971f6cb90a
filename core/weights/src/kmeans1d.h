// Optimal weighted k-means in one dimension, as coreai-opt 0.4.0 runs it for scalar
// palettization (coreai_opt/deps/_kmeans1d, itself Daniel Steinberg's kmeans1d, MIT): the
// dynamic program of Grønlund et al. 2017 with SMAWK row minima, over the values sorted
// ascending. Deterministic: the same doubles in give the same clusters and centroids out,
// which is why opscope's palettized weights agree with prepare()'s bit for bit.
#pragma once

#include <cstddef>
#include <vector>

namespace opscope::weights {

struct Clustered {
  std::vector<std::size_t> clusters; // per value, 0 .. k-1 in ascending centroid order
  std::vector<double> centroids;     // k
};

// k is clamped to values.size(); `weights` empty, or one per value (cluster_with_weights).
// Memory: two k x n tables (doubles and indices), as the original keeps them.
Clustered cluster_1d(const std::vector<double>& values, const std::vector<double>& weights,
                     std::size_t k);

} // namespace opscope::weights
