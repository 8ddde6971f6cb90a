// The graph Quantizer's annotation patterns (coreai-opt 0.4.0,
// quantization/_graph/_annotation_pattern_registry.py) as matches over the index: which ops
// one registered op's matches cover. The index keeps no aten targets, so the pattern graphs'
// aten ops are recognised by the op types (torch_fn names) they export with.
#pragma once

#include "opscope/index/index.h"

#include <vector>

namespace opscope::resolve {

struct PatternMatch {
  std::vector<int> ops; // indices into Index::ops, the registered (primary) op first
};

// Every match keyed by `op` (an op the Quantizer registers), longest first. A weighted op
// (conv*, conv_transpose*, linear, embedding: WeightedModulePattern, SubgraphMatcher) may
// take a batch norm and an activation that only it feeds; matmul / einsum / add / mul take
// an activation when it is their only user (NAryActPattern, _find_sequential_partitions
// without branching); the others are single-op patterns.
std::vector<PatternMatch> quantizer_pattern_matches(const index::Index& index, int op);

} // namespace opscope::resolve
