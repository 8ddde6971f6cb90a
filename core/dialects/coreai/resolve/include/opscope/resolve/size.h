// The model's projected size once a config is applied: bits per weight and bits before and
// after, as coreai_opt.inspection.bits_per_weight (0.4.0, inspection/_bpw_utils.py) reports
// them for the model after the eager Quantizer's or the KMeans palettizer's prepare():
//  - every parameter and buffer counts once (tied tensors once), at numel * element bits;
//  - a quantized weight costs numel * n_bits plus, per block, a scale (scale_dtype, else the
//    weight's dtype), a zero point of n_bits when asymmetric, or a float minval (MINVAL);
//  - a palettized weight costs one n_bits index per cluster_dim elements, the LUT
//    (blocks * 2^n_bits * cluster_dim entries at the weight's dtype) and a per-channel scale
//    when enabled.
// The graph-mode Quantizer (the default mode), which bits_per_weight() refuses, is sized the
// same way from the weight fake-quants its prepare() inserts (graph_weights.h): each weight
// one of them quantizes at its spec, every other tensor at full precision.
// Where coreai-opt's function cannot answer (the pruner, a LUT quantized with lut_qspec, a
// spec this port does not know, a weight axis prepare() cannot default) the result says so
// instead of guessing.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/index/index.h"
#include "opscope/resolve/eager_weights.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::resolve {

struct ParameterSize {
  int parameter = 0; // Index::parameters
  std::int64_t elements = 0;
  std::int64_t bits_before = 0; // full precision
  std::int64_t bits_after = 0;
  bool compressed = false;
};

struct ProjectedSize {
  // Why there is no answer ("graph mode: ..."); empty when the numbers below hold.
  std::string unavailable;
  std::int64_t total_weights = 0;
  std::int64_t bits_before = 0;
  std::int64_t bits_after = 0;
  double bpw_before = 0;
  double bpw_after = 0;
  // Sized from the graph Quantizer's weight fake-quants rather than an eager prepare().
  bool graph_mode = false;
  std::vector<ParameterSize> parameters; // Index::parameters order
};

// `why` starts with this when the spec does not fit the weight's shape (a block or group size
// that does not divide it): coreai-opt then disables the compression and the weight stays in
// full precision.
inline constexpr std::string_view kIncompatible = "incompatible with its shape: ";

// The storage in bits of one weight of `shape`/`dtype` under a resolved spec (as written in
// the config, defaults filled in here), or nothing with `why` set: unknown, or kIncompatible.
std::optional<std::int64_t> quantized_bits(const index::Parameter& weight,
                                           const nlohmann::ordered_json& spec,
                                           const std::string& module_type, std::string& why);
// The extent of one quantization block per axis of a weight under a Quantizer spec
// (granularity.get_block_size with the WEIGHT target: per_tensor the whole shape, per_channel
// 1 on its axis, per_block the block on its axis and 1 on the other leading channel axis),
// the axis defaulted from `module_type` as prepare() does; nothing with `why` set otherwise
// (kIncompatible when the block size does not divide the shape).
std::optional<std::vector<std::int64_t>> quant_block_size(const index::Parameter& weight,
                                                          const nlohmann::ordered_json& spec,
                                                          const std::string& module_type,
                                                          std::string& why);
std::optional<std::int64_t> palettized_bits(const index::Parameter& weight,
                                            const nlohmann::ordered_json& spec,
                                            const std::string& module_type, std::string& why);

// The Quantizer's prepare() raises ValueError when a weight's granularity needs an axis it
// was not given (per_channel, or per_block with one block size) and coreai-opt has no default
// axis for the module owning the weight (quantization/_axis_defaults.py: Linear, Conv*,
// ConvTranspose*, Embedding only). The granularity type when that happens; nothing otherwise
// (also when the owner's type is unknown).
std::optional<std::string> quantizer_axis_missing(const nlohmann::ordered_json& spec,
                                                  const std::string& module_type);

// Whether `w`'s spec can be applied under `compressor` (the Quantizer or the palettizer;
// the others always): false, with `why`, when its granularity does not fit the weight's
// shape, so coreai-opt disables that compressor and the weight stays in full precision.
bool spec_fits(const index::Index& index, const WeightDecision& w, index::Compressor compressor,
               std::string& why);

// From the document (and its text, for the spec values) and the index. `modules`: the
// resolution of the same document and index (resolve_config) if the caller has it already.
// `weights`: resolve_eager_weights() of the same document and index if the caller has it
// (eager mode only).
ProjectedSize projected_size(const config::ConfigDocument& document, const index::Index& index,
                             const Resolution* modules = nullptr,
                             const EagerWeights* weights = nullptr);

// Why projected_size() cannot answer for this config and index before resolving anything
// (the pruner, an index without parameters, an eager Quantizer config on a graph index);
// nothing when it can try.
std::optional<std::string> size_unavailable(const config::ConfigDocument& document,
                                            const index::Index& index);

// As JSON for `opscope explain --json`'s "size" field: {"bits_per_weight": {"before",
// "after"}, "bits": {...}, "bytes": {...}, "weights": N, "modules": {...}, "module_bits": {...}}
// or {"unavailable": "..."}. "modules": each module's own bits per weight after (the tensors it
// owns directly), as BitsPerWeightResult.per_module_map; modules owning nothing are left out.
// "module_bits": the same modules' {"weights", "before", "after"} (bits), what the treemap of
// `explain --html` sizes its rectangles by.
// `index` is the one `size` was computed on.
nlohmann::ordered_json size_to_json(const ProjectedSize& size, const index::Index& index);

} // namespace opscope::resolve
