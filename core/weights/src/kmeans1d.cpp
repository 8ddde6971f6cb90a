// Ported from coreai_opt/deps/_kmeans1d/_core.cpp (coreai-opt 0.4.0):
//   MIT License, Copyright (c) 2019 Daniel Steinberg; Copyright © 2026 Apple Inc.
//   Permission is hereby granted, free of charge, to any person obtaining a copy of this
//   software and associated documentation files (the "Software"), to deal in the Software
//   without restriction, including without limitation the rights to use, copy, modify, merge,
//   publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
//   to whom the Software is furnished to do so, subject to the following conditions: The above
//   copyright notice and this permission notice shall be included in all copies or substantial
//   portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
// The arithmetic is the original's, in the same order (prefix sums, the cost formula, the
// running mean of the backtrack), so ties and roundings fall the same way; only the lookup is
// a template instead of a std::function.
#include "kmeans1d.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace opscope::weights {
namespace {

using Index = std::size_t;

template <typename Lookup>
void smawk_rows(const std::vector<Index>& rows, const std::vector<Index>& cols,
                const Lookup& lookup, std::vector<Index>& result) {
  if (rows.empty())
    return;
  std::vector<Index> kept; // REDUCE: the stack of surviving columns
  for (Index col : cols) {
    while (!kept.empty()) {
      const Index row = rows[kept.size() - 1];
      if (lookup(row, col) >= lookup(row, kept.back()))
        break;
      kept.pop_back();
    }
    if (kept.size() < rows.size())
      kept.push_back(col);
  }
  std::vector<Index> odd_rows;
  for (Index i = 1; i < rows.size(); i += 2)
    odd_rows.push_back(rows[i]);
  smawk_rows(odd_rows, kept, lookup, result);
  std::unordered_map<Index, Index> col_index;
  for (Index i = 0; i < kept.size(); ++i)
    col_index[kept[i]] = i;
  Index start = 0; // INTERPOLATE the even rows
  for (Index r = 0; r < rows.size(); r += 2) {
    const Index row = rows[r];
    Index stop = kept.size() - 1;
    if (r < rows.size() - 1)
      stop = col_index[result[rows[r + 1]]];
    Index argmin = kept[start];
    double min = lookup(row, argmin);
    for (Index c = start + 1; c <= stop; ++c) {
      const double value = lookup(row, kept[c]);
      if (value < min) {
        argmin = kept[c];
        min = value;
      }
    }
    result[row] = argmin;
    start = stop;
  }
}

// Sums of weights, weighted values and weighted squares over the sorted values; weight 1 each
// when unweighted (CostCalculator), the given ones otherwise (WeightedCostCalculator).
class Costs {
public:
  Costs(const std::vector<double>& sorted, const std::vector<double>* sorted_weights)
      : weighted_(sorted_weights != nullptr) {
    cumw_.push_back(0.0);
    cumsum_.push_back(0.0);
    cumsum2_.push_back(0.0);
    for (Index i = 0; i < sorted.size(); ++i) {
      const double x = sorted[i];
      if (weighted_) {
        const double w = (*sorted_weights)[i];
        cumw_.push_back(w + cumw_[i]);
        cumsum_.push_back(w * x + cumsum_[i]);
        cumsum2_.push_back(w * x * x + cumsum2_[i]);
      } else {
        cumsum_.push_back(x + cumsum_[i]);
        cumsum2_.push_back(x * x + cumsum2_[i]);
      }
    }
  }
  double weight(Index i, Index j) const {
    if (!weighted_)
      return i <= j ? static_cast<double>(1 + j - i) : 0;
    return i <= j ? cumw_[j + 1] - cumw_[i] : 0.0;
  }
  double cost(Index i, Index j) const {
    if (j < i)
      return 0.0;
    if (!weighted_) {
      const double mu = (cumsum_[j + 1] - cumsum_[i]) / static_cast<double>(j - i + 1);
      double result = cumsum2_[j + 1] - cumsum2_[i];
      result += static_cast<double>(j - i + 1) * (mu * mu);
      result -= (2 * mu) * (cumsum_[j + 1] - cumsum_[i]);
      return result;
    }
    const double w = weight(i, j);
    const double mu = (cumsum_[j + 1] - cumsum_[i]) / w;
    double result = cumsum2_[j + 1] - cumsum2_[i];
    result += w * (mu * mu);
    result -= (2 * mu) * (cumsum_[j + 1] - cumsum_[i]);
    return result;
  }

private:
  bool weighted_;
  std::vector<double> cumw_, cumsum_, cumsum2_;
};

} // namespace

Clustered cluster_1d(const std::vector<double>& values, const std::vector<double>& weights,
                     std::size_t k) {
  const Index n = values.size();
  Clustered out;
  if (n == 0 || k == 0)
    return out;
  k = std::min(k, n);
  std::vector<Index> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](Index a, Index b) { return values[a] < values[b]; });
  std::vector<Index> position(n);
  std::vector<double> sorted(n), sorted_weights;
  for (Index i = 0; i < n; ++i) {
    sorted[i] = values[order[i]];
    position[order[i]] = i;
  }
  if (!weights.empty()) {
    sorted_weights.resize(n);
    for (Index i = 0; i < n; ++i)
      sorted_weights[i] = weights[order[i]];
  }
  const Costs costs(sorted, weights.empty() ? nullptr : &sorted_weights);

  std::vector<double> best(k * n); // D: the least cost of the first i+1 values in k_+1 clusters
  std::vector<Index> first(k * n); // T: where the last of those clusters starts
  for (Index i = 0; i < n; ++i)
    best[i] = costs.cost(0, i);
  std::vector<Index> rows(n), cols(n), argmins(n);
  std::iota(rows.begin(), rows.end(), 0);
  std::iota(cols.begin(), cols.end(), 0);
  for (Index k_ = 1; k_ < k; ++k_) {
    const double* previous = &best[(k_ - 1) * n];
    auto lookup = [&](Index i, Index j) -> double {
      const Index col = i < j - 1 ? i : j - 1; // j - 1 wraps at j == 0, as the original's does
      return previous[col] + costs.cost(j, i);
    };
    smawk_rows(rows, cols, lookup, argmins);
    for (Index i = 0; i < n; ++i) {
      best[k_ * n + i] = lookup(i, argmins[i]);
      first[k_ * n + i] = argmins[i];
    }
  }

  std::vector<Index> sorted_clusters(n);
  out.centroids.assign(k, 0.0);
  Index t = n, k_ = k - 1, n_ = n - 1;
  do {
    const Index end = t;
    t = first[k_ * n + n_];
    double centroid = 0.0;
    for (Index i = t; i < end; ++i) {
      sorted_clusters[i] = k_;
      centroid += (sorted[i] - centroid) * costs.weight(i, i) / costs.weight(t, i);
    }
    out.centroids[k_] = centroid;
    k_ -= 1;
    n_ = t - 1;
  } while (t > 0);
  out.clusters.resize(n);
  for (Index i = 0; i < n; ++i)
    out.clusters[i] = sorted_clusters[position[i]];
  return out;
}

} // namespace opscope::weights
