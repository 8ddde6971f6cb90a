#include "opscope/resolve/weight_quantization.h"

#include "compressed_weights.h"
#include "opscope/coreai/config/values.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/graph_weights.h"
#include "opscope/resolve/size.h"

#include <optional>
#include <set>
#include <string_view>

namespace opscope::resolve {
namespace {

using json = nlohmann::ordered_json;

std::string field(const json& spec, const char* name, const char* fallback) {
  if (spec.contains(name) && spec[name].is_string()) {
    std::string value = spec[name].get<std::string>();
    return value.rfind("torch.", 0) == 0 ? value.substr(6) : value;
  }
  return fallback;
}

bool unset(const json& spec, const char* name) {
  return !spec.contains(name) || spec[name].is_null();
}

// QuantizationSpec.get_quant_range for the integer dtypes; nothing for the others.
std::optional<std::pair<std::int64_t, std::int64_t>> quant_range(const std::string& dtype,
                                                                 const std::string& qscheme) {
  static const std::set<std::string_view> kIntegers = {"int8",  "int6",  "int4",  "int2",
                                                       "uint8", "uint6", "uint4", "uint2"};
  if (!kIntegers.count(dtype))
    return std::nullopt;
  const bool is_signed = dtype[0] == 'i';
  const int n_bits = dtype.back() - '0';
  const std::int64_t levels = std::int64_t{1} << n_bits;
  if (!is_signed)
    return std::pair{std::int64_t{0}, levels - 1};
  const std::int64_t max = levels / 2 - 1;
  return std::pair{qscheme == "symmetric_with_clipping" ? -max : -levels / 2, max};
}

WeightQuantization quantization_of(const index::Parameter& p, const json& spec,
                                   const std::string& module_type, bool& fits) {
  WeightQuantization q;
  auto refuse = [&](std::string why) {
    q.not_computed = std::move(why);
    return q;
  };
  q.dtype = field(spec, "dtype", "int8");
  q.qscheme = field(spec, "qscheme", "symmetric");
  q.formulation = field(spec, "qformulation", "zp");
  if (q.qscheme != "symmetric" && q.qscheme != "asymmetric" &&
      q.qscheme != "symmetric_with_clipping")
    return refuse("qscheme " + q.qscheme + " is not one coreai-opt 0.4.0 has");
  if (q.formulation != "zp" && q.formulation != "minval")
    return refuse("qformulation " + q.formulation + " is not one coreai-opt 0.4.0 has");
  auto range = quant_range(q.dtype, q.qscheme);
  if (!range)
    return refuse("dtype " + q.dtype + ": only integer dtypes are computed so far");
  std::tie(q.quant_min, q.quant_max) = *range;
  if (!unset(spec, "scale_dtype"))
    return refuse("an e8m0 scale_dtype is not computed so far");
  if (spec.contains("float_range") && spec["float_range"].is_array())
    for (const json& bound : spec["float_range"])
      if (!bound.is_null())
        return refuse("a float_range is not computed so far");
  // A weight's fake-quant computes its range from the weight on every forward; on one
  // tensor every stateful calculator coreai-opt has gives the min/max of that tensor.
  static const std::set<std::string> kCalculators = {"default", "static", "moving_average",
                                                     "global_minmax"};
  if (const std::string c = field(spec, "qparam_calculator_cls", "default"); !kCalculators.count(c))
    return refuse("qparam_calculator_cls " + c + " is not computed");
  if (const std::string c = field(spec, "range_calculator_cls", "minmax"); c != "minmax")
    return refuse("range_calculator_cls " + c + " is not computed");
  if (const std::string c = field(spec, "fake_quantize_cls", "default"); c != "default")
    return refuse("fake_quantize_cls " + c + " is not computed");
  std::string why;
  auto block = quant_block_size(p, spec, module_type, why);
  if (!block) {
    fits = why.rfind(kIncompatible, 0) != 0; // prepare() disables an incompatible one
    return refuse(why);
  }
  q.block_size = std::move(*block);
  return q;
}

// The batch norm a graph-mode conv's weight is folded with before its fake-quant, if any: the
// conv's one consumer, a batch_norm reading gamma, beta, running mean and variance.
std::optional<WeightQuantization::NormFold> norm_fold(const index::Index& index,
                                                      const WeightDecision& d) {
  const int reader = d.op >= 0 ? d.op : d.readers.empty() ? -1 : d.readers.front().op;
  if (reader < 0)
    return std::nullopt;
  const index::Op& conv = index.ops[static_cast<std::size_t>(reader)];
  if (conv.type.rfind("conv", 0) != 0 || conv.outputs.size() != 1 ||
      conv.outputs.front().second.size() != 1)
    return std::nullopt;
  const index::Op* norm = index.find_op(conv.outputs.front().second.front());
  if (!norm || norm->type != "batch_norm")
    return std::nullopt;
  std::vector<std::string> states;
  for (const index::InputEdge& in : norm->inputs)
    if (in.is_state)
      states.push_back(in.producer);
  if (states.size() != 4)
    return std::nullopt;
  WeightQuantization::NormFold fold;
  fold.weight = states[0];
  fold.running_var = states[3];
  fold.axis = conv.type.rfind("conv_transpose", 0) == 0 ? 1 : 0;
  return fold;
}

} // namespace

std::vector<WeightQuantization> quantized_weights(const config::ConfigDocument& document,
                                                  const index::Index& index,
                                                  const Resolution* modules) {
  std::vector<WeightQuantization> out;
  const bool pruner_or_palettizer = document.root == index::Compressor::MagnitudePruner ||
                                    document.root == index::Compressor::KMeansPalettizer;
  if (document.root != index::Compressor::Quantizer && !pruner_or_palettizer)
    return out;
  // The pruner and the palettizer have only eager mode.
  const bool graph = !pruner_or_palettizer && resolves_in_graph_mode(document, index);
  if (!graph && !resolves_eager_weights(document, index))
    return out;
  std::optional<json> values = config::read_values(document);
  if (!values)
    return out;
  std::optional<Resolution> computed;
  if (!modules)
    modules = &computed.emplace(resolve_config(document, index));
  std::vector<WeightDecision> weights =
      graph ? resolve_graph_weights(document, *values, index, *modules)
            : resolve_eager_weights(document, *values, index, modules).parameters;
  if (pruner_or_palettizer)
    return detail::pruned_or_palettized_weights(document, *values, index, *modules, weights);
  for (const WeightDecision& d : weights) {
    if (!d.spec.is_object())
      continue;
    const index::Parameter& p = index.parameters[static_cast<std::size_t>(d.parameter)];
    std::string module_type;
    if (graph)
      module_type = graph_axis_module_type(index, d);
    else if (const index::Module* owner = index.find_module(index::owner_module_name(p.name)))
      module_type = owner->type;
    bool fits = true;
    WeightQuantization q = quantization_of(p, d.spec, module_type, fits);
    q.parameter = d.parameter;
    q.decider = d.decider;
    if (graph && q.not_computed.empty())
      q.fold = norm_fold(index, d);
    if (fits)
      out.push_back(std::move(q));
  }
  return out;
}

} // namespace opscope::resolve
