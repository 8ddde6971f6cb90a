// compressed-tensors' quantization schemes as they stand after validation
// (quantization/quant_args.py validate_model_after, quant_scheme.py PRESET_SCHEMES of
// compressed-tensors 0.19.0): what a module that gets a scheme is quantized with.
#pragma once

#include "opscope/dialects/llmcompressor/config.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::dialects::llmcompressor {

// One QuantizationArgs after validation (the strategy inferred).
struct Quant {
  int bits = 8;
  bool is_float = false;
  std::string strategy = "tensor"; // tensor, channel, group, block, token, tensor_group, attn_head
  long long group_size = 0;        // 0: None
  bool symmetric = true;
  std::string dynamic = "false";            // "false" | "true" | "local"
  std::vector<long long> block_structure{}; // [rows, cols] of the block strategy
  std::string scale_dtype{}; // torch's name without "torch." ("uint8"), empty when None
  bool operator==(const Quant&) const = default;
};

struct Scheme {
  std::optional<Quant> weights, input_activations, output_activations;
  bool operator==(const Scheme&) const = default;
};

// A preset by name (any case, as preset_name_to_scheme upper-cases it); nullopt when unknown.
std::optional<Scheme> preset_scheme(std::string_view name);
// Every preset name, in PRESET_SCHEMES' order.
const std::vector<std::string>& preset_names();

// QuantizationArgs' validation of what was written: the args, or pydantic's refusal.
struct Validated {
  std::optional<Quant> quant;
  std::string error; // set when the args are refused
};
Validated validate(const QuantArgs& args);

// "w4 int group 128, a8 int token dynamic" (no activations: "a16").
std::string describe(const Scheme& scheme);
// Compact form for tests and the judge: "w4i:group:128|a8i:token|-".
std::string signature(const Scheme& scheme);

} // namespace opscope::dialects::llmcompressor
