// PRESET_SCHEMES and QuantizationArgs' validator, copied from compressed-tensors 0.19.0
// (tests/dialects/test_llmcompressor_judge.py compares every preset with the installed one).
#include "opscope/dialects/llmcompressor/schemes.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace opscope::dialects::llmcompressor {
namespace {

Quant q(int bits, bool is_float, std::string strategy, long long group = 0,
        std::string dynamic = "false", bool symmetric = true) {
  return Quant{bits, is_float, std::move(strategy), group, symmetric, std::move(dynamic), {}, {}};
}

// The presets that round their scales to a narrower dtype (scale_dtype): NVFP4's FP8, MX's
// E8M0 exponents in uint8.
Quant scaled(Quant quant, std::string scale_dtype) {
  quant.scale_dtype = std::move(scale_dtype);
  return quant;
}

// _int_wnam(weight_bits, act_bits): group-128 symmetric int weights, int per-token dynamic
// activations below 16 bits.
Scheme int_wnam(int weight_bits, int act_bits = 16) {
  Scheme s;
  s.weights = q(weight_bits, false, "group", 128);
  if (act_bits < 16)
    s.input_activations = q(act_bits, false, "token", 0, "true");
  return s;
}

struct Preset {
  std::string name;
  Scheme scheme;
};

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = [] {
    std::vector<Preset> t;
    const std::string fp8_scale = "float8_e4m3fn", e8m0 = "uint8";
    Quant nv = scaled(q(4, true, "tensor_group", 16), fp8_scale);
    Quant mx4 = scaled(q(4, true, "group", 32), e8m0);
    Quant mx8 = scaled(q(8, true, "group", 32), e8m0);
    Scheme nvfp4a16{nv, std::nullopt, std::nullopt};
    Scheme nvfp4{nv, scaled(q(4, true, "tensor_group", 16, "local"), fp8_scale), std::nullopt};
    Scheme mxfp4a16{mx4, std::nullopt, std::nullopt};
    Scheme mxfp4{mx4, scaled(q(4, true, "group", 32, "true"), e8m0), std::nullopt};
    Scheme mxfp8a16{mx8, std::nullopt, std::nullopt};
    Scheme mxfp8{mx8, scaled(q(8, true, "group", 32, "true"), e8m0), std::nullopt};
    Scheme w8a8{q(8, false, "channel"), q(8, false, "token", 0, "true"), std::nullopt};
    Scheme w4a16_asym{q(4, false, "group", 128, "false", false), std::nullopt, std::nullopt};
    Scheme w4afp8{q(4, false, "group", 128), q(8, true, "token", 0, "true"), std::nullopt};
    Scheme fp8{q(8, true, "tensor"), q(8, true, "tensor"), std::nullopt};
    Scheme fp8_dynamic{q(8, true, "channel"), q(8, true, "token", 0, "true"), std::nullopt};
    Quant block = q(8, true, "block");
    block.block_structure = {128, 128};
    Scheme fp8_block{block, q(8, true, "group", 128, "true"), std::nullopt};
    t = {{"UNQUANTIZED", Scheme{}},
         {"W4A16_ASYM", w4a16_asym},
         {"W8A8", w8a8},
         {"INT8", w8a8},
         {"W4AFP8", w4afp8},
         {"FP8", fp8},
         {"FP8_DYNAMIC", fp8_dynamic},
         {"FP8_BLOCK", fp8_block},
         {"NVFP4A16", nvfp4a16},
         {"NVFP4", nvfp4},
         {"MXFP4A16", mxfp4a16},
         {"MXFP4", mxfp4},
         {"MXFP8A16", mxfp8a16},
         {"MXFP8", mxfp8},
         {"W2A4", int_wnam(2, 4)},
         {"W2A8", int_wnam(2, 8)},
         {"W2A16", int_wnam(2)},
         {"W3A4", int_wnam(3, 4)},
         {"W3A8", int_wnam(3, 8)},
         {"W3A16", int_wnam(3)},
         {"W4A4", int_wnam(4, 4)},
         {"W4A8", int_wnam(4, 8)},
         {"W4A16", int_wnam(4)},
         {"W5A8", int_wnam(5, 8)},
         {"W5A16", int_wnam(5)},
         {"W6A8", int_wnam(6, 8)},
         {"W6A16", int_wnam(6)},
         {"W7A8", int_wnam(7, 8)},
         {"W7A16", int_wnam(7)},
         {"W8A16", int_wnam(8)}};
    return t;
  }();
  return table;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string quant_text(const std::optional<Quant>& a, char role) {
  if (!a)
    return "-";
  std::string out = std::string(1, role) + std::to_string(a->bits) + (a->is_float ? "f" : "i") +
                    ":" + a->strategy;
  if (a->group_size)
    out += ":" + std::to_string(a->group_size);
  return out;
}

} // namespace

std::optional<Scheme> preset_scheme(std::string_view name) {
  std::string wanted = upper(name);
  for (const Preset& p : presets())
    if (p.name == wanted)
      return p.scheme;
  return std::nullopt;
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Preset& p : presets())
      n.push_back(p.name);
    return n;
  }();
  return names;
}

// quant_args.py QuantizationArgs.validate_model_after, in its order.
Validated validate(const QuantArgs& a) {
  static constexpr std::array<std::string_view, 7> kStrategies = {
      "tensor", "channel", "group", "block", "token", "tensor_group", "attn_head"};
  Validated v;
  if (a.type != "int" && a.type != "float")
    return {std::nullopt, "type must be 'int' or 'float', not '" + a.type + "'"};
  if (a.strategy &&
      std::find(kStrategies.begin(), kStrategies.end(), *a.strategy) == kStrategies.end())
    return {std::nullopt, "unknown strategy '" + *a.strategy + "'"};
  if (a.dynamic != "false" && a.dynamic != "true" && a.dynamic != "local")
    return {std::nullopt, "dynamic must be true, false or 'local'"};
  std::string strategy;
  if (a.strategy)
    strategy = *a.strategy;
  else if (!a.group_size)
    strategy = "tensor";
  else if (*a.group_size > 0)
    strategy = "group";
  else if (*a.group_size == -1)
    strategy = "channel";
  else
    return {std::nullopt, "Invalid group size " + std::to_string(*a.group_size) +
                              ". Use group_size > 0 for strategy='group' and group_size = -1 "
                              "for 'channel'"};
  bool dynamic = a.dynamic != "false";
  if (strategy == "token" && !dynamic)
    return {std::nullopt, "Cannot perform static token quantization, please use `dynamic=True`"};
  bool grouped = strategy == "group" || strategy == "tensor_group";
  if (grouped && (!a.group_size || *a.group_size <= 0))
    return {std::nullopt,
            "strategy " + strategy + " requires group_size to be set to a positive value"};
  if (a.group_size && *a.group_size > 0 && !grouped)
    return {std::nullopt, "group_size requires strategy to be set to 'group'"};
  if (strategy == "block" && !a.block_structure)
    return {std::nullopt, "Block strategy requires block structure"};
  if (a.block_structure && strategy != "block")
    return {std::nullopt, "Block structure requires block strategy"};
  if (dynamic && strategy != "token" && strategy != "tensor" && strategy != "tensor_group" &&
      strategy != "group")
    return {std::nullopt,
            "One of token, tensor, tensor_group, group must be used for dynamic quant."};
  if (a.dynamic == "local" && strategy != "tensor_group")
    return {std::nullopt, "local is only supported for strategy tensor_group"};
  // pytorch_dtype() of the zero point: float other than 4 or 8 bits is refused.
  if (a.type == "float" && a.num_bits != 8 && a.num_bits != 4)
    return {std::nullopt, "Only num_bits in (8) are supported"};
  std::string scale_dtype = a.scale_dtype;
  if (scale_dtype.starts_with("torch."))
    scale_dtype.erase(0, 6);
  v.quant = Quant{a.num_bits,  a.type == "float",
                  strategy,    a.group_size && *a.group_size > 0 ? *a.group_size : 0,
                  a.symmetric, a.dynamic,
                  a.block,     std::move(scale_dtype)};
  return v;
}

std::string describe(const Scheme& s) {
  auto part = [](const Quant& a, const char* role) {
    std::string out = std::string(role) + std::to_string(a.bits) +
                      (a.is_float ? " float " : " int ") + a.strategy;
    if (a.group_size)
      out += " " + std::to_string(a.group_size);
    if (a.dynamic != "false")
      out += a.dynamic == "local" ? " dynamic (local)" : " dynamic";
    if (!a.symmetric)
      out += " asymmetric";
    return out;
  };
  std::string out = s.weights ? part(*s.weights, "w") : "weights unquantized";
  out += ", " + (s.input_activations ? part(*s.input_activations, "a") : std::string("a16"));
  if (s.output_activations)
    out += ", " + part(*s.output_activations, "out ");
  return out;
}

std::string signature(const Scheme& s) {
  return quant_text(s.weights, 'w') + "|" + quant_text(s.input_activations, 'a') + "|" +
         quant_text(s.output_activations, 'o');
}

} // namespace opscope::dialects::llmcompressor
