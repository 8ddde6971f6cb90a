#include "compressed_weights.h"

#include "opscope/coreai/config/values.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/pruner.h"
#include "opscope/resolve/size.h"
#include "state_specs.h"

#include <optional>
#include <set>
#include <string>

namespace opscope::resolve::detail {
namespace {

using json = nlohmann::ordered_json;

bool written(const json& spec, const char* field) {
  return spec.is_object() && spec.contains(field) && !spec[field].is_null();
}

WeightQuantization pruning_of(const json& written_spec) {
  WeightQuantization q;
  const json spec = filled_pruning_spec(written_spec);
  if (!spec["target_sparsity"].is_number()) {
    q.not_computed = "target_sparsity is not a number";
    return q;
  }
  if (const json& algo = spec["pruning_algo"]; !algo.is_string() || algo != "default") {
    q.not_computed = "pruning_algo " + algo.dump() +
                     " is not computed (only \"default\", "
                     "magnitude pruning)";
    return q;
  }
  WeightQuantization::Pruning p;
  p.sparsity = spec["target_sparsity"].get<double>();
  const json& scheme = spec["pruning_scheme"];
  const std::string type = scheme.is_object() ? scheme.value("type", "unstructured") : "";
  if (type == "channel_structured") {
    if (!scheme["axis"].is_number_integer()) {
      q.not_computed = "channel_structured axis is not an integer";
      return q;
    }
    p.channel_axis = scheme["axis"].get<int>();
  } else if (type != "unstructured") {
    q.not_computed = "pruning_scheme " + scheme.dump() + " is not one coreai-opt 0.4.0 has";
    return q;
  }
  q.pruning = p;
  return q;
}

WeightQuantization palettization_of(const json& spec, const json& module_config,
                                    bool transposed_conv) {
  WeightQuantization q;
  auto refuse = [&](std::string why) {
    q.not_computed = std::move(why);
    return q;
  };
  WeightQuantization::Palettization p;
  if (written(spec, "n_bits")) {
    static const std::set<int> kBits = {1, 2, 3, 4, 6, 8};
    if (!spec["n_bits"].is_number_integer() || !kBits.count(spec["n_bits"].get<int>()))
      return refuse("n_bits " + spec["n_bits"].dump() + " is not one of 1, 2, 3, 4, 6, 8");
    p.n_bits = spec["n_bits"].get<int>();
  }
  if (written(spec, "cluster_dim") && spec["cluster_dim"] != 1)
    return refuse("vector palettization (cluster_dim > 1) is not computed so far: coreai-opt's "
                  "k-means++ restarts follow scikit-learn's or torch's random stream");
  if (written(spec, "lut_qspec"))
    return refuse("a quantized LUT (lut_qspec) is not computed so far");
  if (written(spec, "sparsity_detection_threshold"))
    return refuse("joint sparsity (sparsity_detection_threshold) is not computed so far");
  if (written(spec, "enable_per_channel_scale")) {
    if (!spec["enable_per_channel_scale"].is_boolean())
      return refuse("enable_per_channel_scale is not a boolean");
    p.per_channel_scale = spec["enable_per_channel_scale"].get<bool>();
  }
  json g = written(spec, "granularity") ? spec["granularity"] : json("per_tensor");
  if (g.is_string())
    g = json{{"type", g}};
  const std::string type = g.is_object() ? g.value("type", "") : "";
  if (type == "per_grouped_channel") {
    if (!g.contains("group_size") || !g["group_size"].is_number_integer() ||
        g["group_size"].get<std::int64_t>() <= 0)
      return refuse("per_grouped_channel needs a positive group_size");
    p.group_size = g["group_size"].get<std::int64_t>();
    // The op's palettization mixin's default_axis: 1 for a transposed conv, else 0.
    p.axis = g.contains("axis") && g["axis"].is_number_integer() ? g["axis"].get<int>()
                                                                 : (transposed_conv ? 1 : 0);
  } else if (type != "per_tensor") {
    return refuse("palettization granularity " + g.dump() + " is not one coreai-opt 0.4.0 has");
  }
  if (module_config.is_object()) {
    if (written(module_config, "enable_fast_kmeans_mode") &&
        module_config["enable_fast_kmeans_mode"].is_boolean())
      p.fast_kmeans = module_config["enable_fast_kmeans_mode"].get<bool>();
    if (written(module_config, "rounding_precision") &&
        module_config["rounding_precision"].is_number_integer())
      p.rounding_precision = module_config["rounding_precision"].get<int>();
  }
  q.palettization = p;
  return q;
}

bool reads_as_transposed_conv(const index::Index& index, const WeightDecision& d) {
  if (d.op >= 0 &&
      index.ops[static_cast<std::size_t>(d.op)].type.find("conv_transpose") != std::string::npos)
    return true;
  const index::Parameter& p = index.parameters[static_cast<std::size_t>(d.parameter)];
  const index::Module* owner = index.find_module(index::owner_module_name(p.name));
  return owner && owner->type.find("ConvTranspose") != std::string::npos;
}

} // namespace

std::vector<WeightQuantization>
pruned_or_palettized_weights(const config::ConfigDocument& document, const json& values,
                             const index::Index& index, const Resolution& modules,
                             const std::vector<WeightDecision>& weights) {
  std::vector<WeightQuantization> out;
  const bool pruner = document.root == index::Compressor::MagnitudePruner;
  for (const WeightDecision& d : weights) {
    if (!d.spec.is_object())
      continue;
    if (std::string why; !spec_fits(index, d, document.root, why))
      continue; // prepare() disables it: the weight stays as it is
    json module_config;
    if (!pruner && d.module >= 0 && static_cast<std::size_t>(d.module) < modules.modules.size())
      module_config = entry_config(document, values,
                                   modules.modules[static_cast<std::size_t>(d.module)].decider);
    WeightQuantization q =
        pruner ? pruning_of(d.spec)
               : palettization_of(d.spec, module_config, reads_as_transposed_conv(index, d));
    q.parameter = d.parameter;
    q.decider = d.decider;
    out.push_back(std::move(q));
  }
  return out;
}

} // namespace opscope::resolve::detail
