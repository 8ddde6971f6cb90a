// The fake quantization the Quantizer's prepare() applies to each weight, spelled out as the
// numbers the weight-error worker (opscope-weights) needs to redo it on the real tensor:
// coreai-opt 0.4.0's QuantizationSpec.get_quant_range (quant_min / quant_max per dtype and
// qscheme) and QuantizationGranularity.get_block_size (size.h's quant_block_size).
// The MagnitudePruner's and the KMeansPalettizer's weights come as the same rows with
// `pruning` or `palettization` set instead (compressed_weights.cpp).
// Pure: reads the parsed document, its values, the index and the resolution.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opscope::resolve {

struct WeightQuantization {
  int parameter = 0;       // Index::parameters
  std::string dtype;       // "int8", "uint4", ...
  std::string qscheme;     // symmetric | asymmetric | symmetric_with_clipping
  std::string formulation; // zp | minval
  std::int64_t quant_min = 0;
  std::int64_t quant_max = 0;
  std::vector<std::int64_t> block_size; // one extent per axis of the weight
  Decider decider;                      // the entry whose spec this is (WeightDecision::decider)
  // Graph mode, a conv whose output goes to a batch norm: prepare() (torchao's conv-bn QAT
  // rewrite, coreai-opt's _conv_bn_utils.py) fake-quantizes the weight scaled per output
  // channel by gamma / sqrt(running_var + eps). The index keeps no eps: BatchNorm's default.
  struct NormFold {
    std::string weight; // gamma
    std::string running_var;
    double eps = 1e-5;
    int axis = 0; // the output-channel axis (1 for a transposed conv)
  };
  std::optional<NormFold> fold;
  // A MagnitudePruner's spec (pruning/spec/prune.py, at its target_sparsity: where a
  // sparsity_schedule ends); the quantization fields are then unset.
  struct Pruning {
    double sparsity = 0.5;
    std::optional<int> channel_axis; // nothing: unstructured
  };
  std::optional<Pruning> pruning;
  // A KMeansPalettizer's scalar spec (kmeans_fake_palettize.py) and its module config's
  // k-means settings; the quantization fields are then unset.
  struct Palettization {
    int n_bits = 4;
    int axis = 0;                // per_grouped_channel's, the op's default when unwritten
    std::int64_t group_size = 0; // 0: per_tensor
    bool per_channel_scale = false;
    bool fast_kmeans = true; // enable_fast_kmeans_mode
    int rounding_precision = 4;
  };
  std::optional<Palettization> palettization;
  // Why this weight's error is not computed (a float dtype, a float_range, an e8m0 scale, a
  // spec this port does not know); the fields above are then unset.
  std::string not_computed;
};

// Every weight the Quantizer fake-quantizes on this index (graph mode: the weight fake-quants
// of graph_weights.h; eager mode, execution_mode: eager on an eager index: eager_weights.h),
// in Index::parameters order; a spec whose granularity does not fit the weight's shape is
// left out (prepare() disables it: the weight stays in full precision). The pruner's and the
// palettizer's weights (eager) likewise, with `pruning` / `palettization` set. `modules`:
// resolve_config() of the same document and index, if the caller has it.
std::vector<WeightQuantization> quantized_weights(const config::ConfigDocument& document,
                                                  const index::Index& index,
                                                  const Resolution* modules = nullptr);

} // namespace opscope::resolve
