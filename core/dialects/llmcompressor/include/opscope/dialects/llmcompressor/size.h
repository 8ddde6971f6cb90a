// The checkpoint llm-compressor saves (save_pretrained(save_compressed=True)), projected tensor
// by tensor from the schemes resolve() found and the model's shapes, by compressed-tensors
// 0.19's own rules:
//  - initialize_qparams registers per quantized Linear / Embedding a scale per strategy
//    (tensor (1), channel (rows, 1), group and tensor_group (rows, ceil(cols / group)), block
//    (ceil(rows / b0), ceil(cols / b1))) at the weight's dtype (float16 for a non-float one),
//    a zero point of zp_dtype, a float32 global scale for tensor_group; static input / output
//    activations the same over the columns / rows; dynamic ones nothing;
//  - infer_module_format picks the compressor (format.py's priority: mxfp4, mxfp8, nvfp4, int,
//    pack, float, naive quantized, dense; only an exact Linear or Embedding is compressible),
//    unless the checkpoint's config writes the format;
//  - the compressor rewrites the state dict: pack-quantized packs the weight into int32
//    (rows, ceil(cols * bits / 32)) plus weight_shape (int64 [2]), asymmetric group/channel zero
//    points packed along the rows; naive/int/float-quantized store the weight at the
//    quantized dtype (int8, fp8); nvfp4 and mxfp4 pack two values per uint8 and store the
//    scale as FP8 / E8M0 uint8, mxfp8 the weight as fp8 and the scale as uint8; every
//    compressor but dense drops symmetric zero points.
// Every other tensor is saved as it is (biases, norms, embeddings, ignored modules), a tied
// tensor once unless its owners end up stored differently (llm-compressor unties targeted
// embeddings and re-ties them only when they hold the same tensors).
#pragma once

#include "opscope/dialects/llmcompressor/config.h"
#include "opscope/dialects/llmcompressor/resolve.h"
#include "opscope/index/index.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::llmcompressor {

// One quantized module's tensors in the saved checkpoint (its other parameters, a bias,
// excluded): names local to the module ("weight_packed", "weight_scale").
struct CompressedModule {
  std::string format; // "pack-quantized", "float-quantized", "nvfp4-pack-quantized", ...
  std::vector<index::Parameter> tensors;
  std::int64_t weights = 0;      // the weight's elements
  std::int64_t bytes_before = 0; // the weight at its dtype
  std::int64_t bytes_after = 0;  // the tensors above
};

// compress_module on one module under `scheme`: nothing, with `why`, when compressed-tensors
// would refuse (a format it does not know, a strategy the shape cannot take).
// `format`: the checkpoint's written format (else inferred as infer_module_format does).
std::optional<CompressedModule> compress_module(const Scheme& scheme,
                                                const std::optional<std::string>& format,
                                                const index::ModuleObject& module,
                                                const index::Parameter& weight, std::string& why);

// The format infer_module_format picks for a module of this exact class under `scheme`.
std::string inferred_format(const Scheme& scheme, bool compressible_type);

struct ModuleProjection {
  int module = -1;   // named_modules()
  int modifier = -1; // the modifier whose scheme it carries (the last to set one)
  CompressedModule compressed;
};

struct ProjectedCheckpoint {
  std::string unavailable;  // why there is no answer; empty when the numbers hold
  std::int64_t weights = 0; // elements of every saved parameter (a tied tensor once)
  std::int64_t bytes_before = 0, bytes_after = 0;
  double bpw_before = 0, bpw_after = 0; // bits per weight, over `weights`
  std::string format; // the checkpoint's: one format, "mixed-precision" or "dense"
  std::vector<ModuleProjection> modules; // the quantized modules, named_modules() order
  // What the numbers leave out, said rather than guessed: fused MoE experts (3-D down_proj and
  // gate_up_proj / up_proj parameters), which oneshot linearizes into per-expert Linear layers
  // before quantizing (linearize_moe); they are counted here as saved unquantized.
  std::string caveat;
};

// The checkpoint after every modifier of a file (`resolutions`: resolve() of each, same
// order): a module carries the scheme of the last modifier that sets one. Parameters only: the
// index does not record which buffers are persistent, and a language model's buffers (rotary
// tables) are in no checkpoint.
ProjectedCheckpoint project_checkpoint(const std::vector<Modifier>& modifiers,
                                       const std::vector<Resolution>& resolutions,
                                       const index::Index& model);

// "projected size: 16.00 -> 4.5625 bits per weight, 1.234 MB -> 0.456 MB (N weights,
// pack-quantized)", as coreai-opt's explain writes its own.
std::string size_line(const ProjectedCheckpoint& size);

} // namespace opscope::dialects::llmcompressor
