#include "opscope/resolve/size.h"

#include "opscope/coreai/config/values.h"
#include "opscope/resolve/graph_weights.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace opscope::resolve {
namespace {

using json = nlohmann::ordered_json;

std::string_view without_torch_prefix(std::string_view dtype) {
  if (dtype.substr(0, 6) == "torch.")
    dtype.remove_prefix(6);
  return dtype;
}

// _SUPPORTED_QUANT_DTYPES and their widths.
std::optional<int> quant_dtype_bits(std::string_view dtype) {
  static const std::map<std::string_view, int> kBits = {{"int8", 8},
                                                        {"uint8", 8},
                                                        {"int6", 6},
                                                        {"uint6", 6},
                                                        {"int4", 4},
                                                        {"uint4", 4},
                                                        {"int2", 2},
                                                        {"uint2", 2},
                                                        {"float8_e4m3fn", 8},
                                                        {"float8_e5m2", 8},
                                                        {"float4_e2m1fn_x2", 4}};
  auto it = kBits.find(without_torch_prefix(dtype));
  if (it == kBits.end())
    return std::nullopt;
  return it->second;
}

std::string text(const json& spec, const char* field, const char* fallback) {
  if (spec.is_object() && spec.contains(field) && spec[field].is_string())
    return spec[field].get<std::string>();
  return fallback;
}

// The granularity as a {"type", "axis", ...} object (a bare string names the type).
json granularity_of(const json& spec) {
  if (!spec.is_object() || !spec.contains("granularity") || spec["granularity"].is_null())
    return json{{"type", "per_tensor"}};
  const json& g = spec["granularity"];
  if (g.is_string())
    return json{{"type", g.get<std::string>()}};
  return g.is_object() ? g : json{{"type", "per_tensor"}};
}

// _WEIGHT_AXIS_SPECS: (per-channel axis, per-block axis) of a weight by its module's type.
std::optional<std::pair<int, int>> default_axes(const std::string& module_type) {
  static const std::map<std::string_view, std::pair<int, int>> kAxes = {
      {"torch.nn.modules.conv.Conv1d", {0, 1}},
      {"torch.nn.modules.conv.Conv2d", {0, 1}},
      {"torch.nn.modules.conv.Conv3d", {0, 1}},
      {"torch.nn.modules.conv.ConvTranspose1d", {1, 0}},
      {"torch.nn.modules.conv.ConvTranspose2d", {1, 0}},
      {"torch.nn.modules.conv.ConvTranspose3d", {1, 0}},
      {"torch.nn.modules.linear.Linear", {0, 1}},
      {"torch.nn.modules.sparse.Embedding", {0, 1}}};
  auto it = kAxes.find(module_type);
  if (it == kAxes.end())
    return std::nullopt;
  return it->second;
}

// An axis written or defaulted, normalised against the rank; nothing when unknown.
std::optional<int> axis_of(const json& g, std::optional<int> fallback, std::size_t rank) {
  std::optional<int> axis = fallback;
  if (g.contains("axis") && g["axis"].is_number_integer())
    axis = g["axis"].get<int>();
  if (!axis)
    return std::nullopt;
  int a = *axis < 0 ? *axis + static_cast<int>(rank) : *axis;
  if (a < 0 || a >= static_cast<int>(rank))
    return std::nullopt;
  return a;
}

// The number of blocks (one scale each) of a quantized weight.
std::optional<std::int64_t> quant_blocks(const index::Parameter& w, const json& spec,
                                         const std::string& module_type, std::string& why) {
  auto block = quant_block_size(w, spec, module_type, why);
  if (!block)
    return std::nullopt;
  std::int64_t blocks = 1;
  for (std::size_t i = 0; i < w.shape.size(); ++i)
    if ((*block)[i] > 0) // an empty axis is one empty block
      blocks *= w.shape[i] / (*block)[i];
  return blocks;
}

// _granularity_needs_axis_default: the granularity type of a spec whose axis coreai-opt
// must default (per_channel without an axis; per_block with one block size and no axis).
std::optional<std::string> granularity_needing_axis(const json& spec) {
  if (!spec.is_object())
    return std::nullopt;
  const json g = granularity_of(spec);
  const std::string type = g.value("type", "per_tensor");
  const bool axis_given = g.contains("axis") && g["axis"].is_number_integer();
  const bool needs_axis =
      !axis_given && (type == "per_channel" || (type == "per_block" && g.contains("block_size") &&
                                                g["block_size"].is_number_integer()));
  if (!needs_axis)
    return std::nullopt;
  return type;
}

} // namespace

std::optional<std::vector<std::int64_t>> quant_block_size(const index::Parameter& w,
                                                          const json& spec,
                                                          const std::string& module_type,
                                                          std::string& why) {
  const json g = granularity_of(spec);
  const std::string type = g.value("type", "per_tensor");
  const auto axes = default_axes(module_type);
  const auto& shape = w.shape;
  if (type == "per_tensor")
    return shape;
  if (type == "per_channel") {
    auto axis = axis_of(g, axes ? std::optional<int>(axes->first) : std::nullopt, shape.size());
    if (!axis) {
      why = "per_channel axis of '" + w.name + "' is not set and has no default for " +
            (module_type.empty() ? std::string("its module") : module_type);
      return std::nullopt;
    }
    std::vector<std::int64_t> block = shape;
    block[static_cast<std::size_t>(*axis)] = 1;
    return block;
  }
  if (type == "per_block") {
    const json& bs = g.contains("block_size") ? g["block_size"] : json();
    if (bs.is_array()) {
      if (bs.size() != shape.size()) {
        why = std::string(kIncompatible) + "per_block block_size of '" + w.name +
              "' does not match its rank";
        return std::nullopt;
      }
      std::vector<std::int64_t> block = shape;
      for (std::size_t i = 0; i < shape.size(); ++i) {
        std::int64_t b = bs[i].is_number_integer() ? bs[i].get<std::int64_t>() : 0;
        if (b == -1)
          continue;
        if (b <= 0 || shape[i] % b != 0) {
          why = std::string(kIncompatible) + "per_block block_size of '" + w.name +
                "' does not divide its shape";
          return std::nullopt;
        }
        block[i] = b;
      }
      return block;
    }
    if (!bs.is_number_integer() || bs.get<std::int64_t>() <= 0) {
      why = "per_block granularity of '" + w.name + "' has no block_size";
      return std::nullopt;
    }
    auto axis = axis_of(g, axes ? std::optional<int>(axes->second) : std::nullopt, shape.size());
    if (!axis) {
      why = "per_block axis of '" + w.name + "' is not set and has no default";
      return std::nullopt;
    }
    const std::int64_t b = bs.get<std::int64_t>();
    if (shape[static_cast<std::size_t>(*axis)] % b != 0) {
      why = std::string(kIncompatible) + "per_block block_size of '" + w.name +
            "' does not divide its shape";
      return std::nullopt;
    }
    // Only the two leading (channel) axes are blocked; trailing ones stay whole.
    std::vector<std::int64_t> block = shape;
    block[static_cast<std::size_t>(*axis)] = b;
    for (std::size_t i = 0; i < shape.size() && i < 2; ++i)
      if (static_cast<int>(i) != *axis)
        block[i] = 1;
    return block;
  }
  why = "granularity '" + type + "' of '" + w.name + "' is not one this version sizes";
  return std::nullopt;
}

std::optional<std::int64_t> quantized_bits(const index::Parameter& w, const json& spec,
                                           const std::string& module_type, std::string& why) {
  const std::string dtype = text(spec, "dtype", "int8");
  auto n_bits = quant_dtype_bits(dtype);
  if (!n_bits) {
    why = "bits_per_weight cannot size quantization dtype " + dtype + " (on '" + w.name + "')";
    return std::nullopt;
  }
  const std::string scheme = text(spec, "qscheme", "symmetric");
  if (scheme != "symmetric" && scheme != "asymmetric" && scheme != "symmetric_with_clipping") {
    why = "bits_per_weight cannot size quantization scheme " + scheme;
    return std::nullopt;
  }
  const std::string formulation = text(spec, "qformulation", "zp");
  if (formulation != "zp" && formulation != "minval") {
    why = "bits_per_weight cannot size quantization formulation " + formulation;
    return std::nullopt;
  }
  int scale_bits = w.element_bits(); // the compute dtype for export: the weight's
  const std::string scale_dtype = text(spec, "scale_dtype", "");
  if (!scale_dtype.empty()) {
    if (without_torch_prefix(scale_dtype) != "float8_e8m0fnu") {
      why = "bits_per_weight cannot size scale dtype " + scale_dtype;
      return std::nullopt;
    }
    scale_bits = 8;
  }
  auto blocks = quant_blocks(w, spec, module_type, why);
  if (!blocks)
    return std::nullopt;
  std::int64_t bits = w.numel() * *n_bits + *blocks * scale_bits;
  if (formulation == "minval")
    bits += *blocks * w.element_bits();
  else if (scheme == "asymmetric")
    bits += *blocks * *n_bits;
  return bits;
}

std::optional<std::int64_t> palettized_bits(const index::Parameter& w, const json& spec,
                                            const std::string& module_type, std::string& why) {
  auto integer = [&](const char* field, std::int64_t fallback) {
    return spec.is_object() && spec.contains(field) && spec[field].is_number_integer()
               ? spec[field].get<std::int64_t>()
               : fallback;
  };
  const std::int64_t n_bits = integer("n_bits", 4);
  const std::int64_t cluster_dim = integer("cluster_dim", 1);
  if (n_bits <= 0 || n_bits > 16 || cluster_dim <= 0) {
    why = "palettization spec of '" + w.name + "' has n_bits or cluster_dim out of range";
    return std::nullopt;
  }
  if (spec.is_object() && spec.contains("lut_qspec") && !spec["lut_qspec"].is_null()) {
    why = "the size of a LUT quantized with lut_qspec (on '" + w.name +
          "') depends on buffers prepare() creates; not projected";
    return std::nullopt;
  }
  const json g = granularity_of(spec);
  const std::string type = g.value("type", "per_tensor");
  std::int64_t blocks = 1;
  if (type == "per_grouped_channel") {
    const auto axes = default_axes(module_type);
    auto axis = axis_of(g, axes ? std::optional<int>(axes->first) : std::nullopt, w.shape.size());
    const std::int64_t group = g.contains("group_size") && g["group_size"].is_number_integer()
                                   ? g["group_size"].get<std::int64_t>()
                                   : 0;
    if (!axis || group <= 0 || w.shape[static_cast<std::size_t>(*axis)] % group != 0) {
      why = std::string(kIncompatible) + "per_grouped_channel granularity of '" + w.name +
            "' does not fit its shape";
      return std::nullopt;
    }
    blocks = w.shape[static_cast<std::size_t>(*axis)] / group;
  } else if (type != "per_tensor") {
    why = "palettization granularity '" + type + "' is not one this version sizes";
    return std::nullopt;
  }
  const std::int64_t weight_bits = w.element_bits();
  std::int64_t bits = (w.numel() / cluster_dim) * n_bits;
  bits += blocks * (std::int64_t{1} << n_bits) * cluster_dim * weight_bits;
  const bool per_channel_scale = spec.is_object() && spec.contains("enable_per_channel_scale") &&
                                 spec["enable_per_channel_scale"].is_boolean() &&
                                 spec["enable_per_channel_scale"].get<bool>();
  if (per_channel_scale && !w.shape.empty())
    bits += w.shape[0] * weight_bits;
  return bits;
}

std::optional<std::string> quantizer_axis_missing(const json& spec,
                                                  const std::string& module_type) {
  if (module_type.empty() || default_axes(module_type))
    return std::nullopt;
  return granularity_needing_axis(spec);
}

bool spec_fits(const index::Index& index, const WeightDecision& w, index::Compressor compressor,
               std::string& why) {
  if (!w.spec.is_object() || (compressor != index::Compressor::Quantizer &&
                              compressor != index::Compressor::KMeansPalettizer))
    return true;
  const index::Parameter& p = index.parameters[static_cast<std::size_t>(w.parameter)];
  std::string module_type;
  if (const index::Module* owner = index.find_module(index::owner_module_name(p.name)))
    module_type = owner->type;
  std::string reason;
  auto bits = compressor == index::Compressor::KMeansPalettizer
                  ? palettized_bits(p, w.spec, module_type, reason)
                  : quantized_bits(p, w.spec, module_type, reason);
  if (bits || reason.rfind(kIncompatible, 0) != 0)
    return true;
  why = std::move(reason);
  return false;
}

std::optional<std::string> size_unavailable(const config::ConfigDocument& document,
                                            const index::Index& index) {
  if (document.root == index::Compressor::MagnitudePruner)
    return "bits_per_weight does not size pruned weights (MagnitudePruner)";
  if (document.root != index::Compressor::KMeansPalettizer &&
      document.root != index::Compressor::Quantizer)
    return "the config has no quantization_config or kmeans_palettization_config root key";
  if (document.root == index::Compressor::Quantizer && index.mode == index::Mode::Graph &&
      !resolves_in_graph_mode(document, index))
    return "this config runs the Quantizer in eager mode (execution_mode: eager) and the model "
           "index is a graph-mode one; its size is projected on the eager-mode index";
  if (index.parameters.empty())
    return "the model index lists no parameters; index the model again with this opscope "
           "(`opscope index MODEL.pt2`)";
  return std::nullopt;
}

namespace {

// The graph reads a weight's default axis from the op consuming its fake-quant; say which
// when none has one (prepare() raises then, as the eager Quantizer does for its module).
std::string graph_axis_reason(const index::Index& index, const WeightDecision& d,
                              const std::string& why) {
  std::string ops;
  for (const WeightDecision::Reader& r : d.readers) {
    const index::Op& op = index.ops[static_cast<std::size_t>(r.op)];
    ops += (ops.empty() ? "" : ", ") + op.name + " [" +
           index.type_for(op, index::Compressor::Quantizer) + "]";
  }
  return why + " (graph mode takes the default from the op reading the weight: " + ops +
         "); coreai-opt's prepare() raises, so give the granularity an axis";
}

// Every tensor once, at full precision unless `weights` gives it a spec that fits its shape.
ProjectedSize sized(const config::ConfigDocument& document, const index::Index& index,
                    const std::vector<WeightDecision>& weights, bool graph) {
  ProjectedSize size;
  size.graph_mode = graph;
  const bool palettizer = document.root == index::Compressor::KMeansPalettizer;
  size.parameters.reserve(index.parameters.size());
  for (std::size_t i = 0; i < index.parameters.size(); ++i) {
    const index::Parameter& p = index.parameters[i];
    const int element_bits = p.element_bits();
    if (element_bits == 0) {
      size.unavailable = "the dtype of '" + p.name + "' is unknown";
      return size;
    }
    ParameterSize ps;
    ps.parameter = static_cast<int>(i);
    ps.elements = p.numel();
    ps.bits_before = ps.elements * element_bits;
    ps.bits_after = ps.bits_before;
    const WeightDecision& d = weights[i];
    if (d.spec.is_object()) {
      std::string module_type;
      if (graph)
        module_type = graph_axis_module_type(index, d);
      else if (const index::Module* owner = index.find_module(index::owner_module_name(p.name)))
        module_type = owner->type;
      std::string why;
      auto bits = palettizer ? palettized_bits(p, d.spec, module_type, why)
                             : quantized_bits(p, d.spec, module_type, why);
      if (!bits && why.rfind(kIncompatible, 0) != 0) {
        size.unavailable = graph && module_type.empty() && granularity_needing_axis(d.spec)
                               ? graph_axis_reason(index, d, why)
                               : why;
        return size;
      }
      // A shape the granularity does not fit: coreai-opt disables the fake-quantize or
      // fake-palettize on it (it warns), and the weight stays in full precision.
      if (bits) {
        ps.bits_after = *bits;
        ps.compressed = true;
      }
    }
    size.total_weights += ps.elements;
    size.bits_before += ps.bits_before;
    size.bits_after += ps.bits_after;
    size.parameters.push_back(ps);
  }
  if (size.total_weights > 0) {
    size.bpw_before =
        static_cast<double>(size.bits_before) / static_cast<double>(size.total_weights);
    size.bpw_after = static_cast<double>(size.bits_after) / static_cast<double>(size.total_weights);
  }
  return size;
}

ProjectedSize unreadable_values() {
  ProjectedSize size;
  size.unavailable = "the config's values cannot be read (no mapping at its root, or more "
                     "than a million values after aliases)";
  return size;
}

} // namespace

ProjectedSize projected_size(const config::ConfigDocument& document, const index::Index& index,
                             const Resolution* modules, const EagerWeights* weights_given) {
  if (auto why = size_unavailable(document, index)) {
    ProjectedSize size;
    size.unavailable = std::move(*why);
    return size;
  }
  if (resolves_in_graph_mode(document, index)) {
    auto values = config::read_values(document);
    if (!values)
      return unreadable_values();
    std::optional<Resolution> computed;
    if (!modules)
      modules = &computed.emplace(resolve_quantizer(document, index));
    return sized(document, index, resolve_graph_weights(document, *values, index, *modules),
                 /*graph=*/true);
  }
  std::optional<EagerWeights> computed;
  if (!weights_given) {
    auto values = config::read_values(document);
    if (values)
      weights_given = &computed.emplace(resolve_eager_weights(document, *values, index, modules));
  }
  if (!weights_given || weights_given->parameters.size() != index.parameters.size())
    return unreadable_values();
  return sized(document, index, weights_given->parameters, /*graph=*/false);
}

std::shared_ptr<const ProjectedSize>
SharedResolution::size(const config::ConfigDocument& document, const index::Index& index,
                       const index::QueryEngine* engine) const {
  std::lock_guard<std::mutex> lock(size_mutex_);
  if (!size_) {
    if (resolves_in_graph_mode(document, index)) { // the fake-quants of the ops' resolution
      std::shared_ptr<const Resolution> ops = get(document, index, engine);
      size_ = std::make_shared<const ProjectedSize>(projected_size(document, index, ops.get()));
    } else {
      std::shared_ptr<const EagerWeights> eager;
      if (!size_unavailable(document, index))
        eager = weights(document, index, engine);
      size_ = std::make_shared<const ProjectedSize>(
          projected_size(document, index, nullptr, eager.get()));
    }
  }
  return size_;
}

std::shared_ptr<const ProjectedSize> SharedResolution::size_if_ready() const {
  std::unique_lock<std::mutex> lock(size_mutex_, std::try_to_lock);
  return lock.owns_lock() ? size_ : nullptr;
}

json size_to_json(const ProjectedSize& size, const index::Index& index) {
  if (!size.unavailable.empty())
    return json{{"unavailable", size.unavailable}};
  // Per owner (the name before the tensor's last dot, a view into the index): bits, weights.
  // Only explain shows it, so the editor's size does not compute it; hashed, sorted once, and
  // the object built from the sorted list: inserting key by key searches the ordered map each
  // time, which was quadratic (a sixth of `explain --json` on GPT-384's 4,000 modules).
  struct Owner {
    std::string_view name;
    std::int64_t bits = 0, bits_before = 0, weights = 0;
  };
  std::vector<Owner> owners;
  std::unordered_map<std::string_view, std::size_t> owner_of;
  for (const ParameterSize& ps : size.parameters) {
    const std::string_view name(index.parameters[static_cast<std::size_t>(ps.parameter)].name);
    const std::size_t dot = name.rfind('.');
    auto [at, added] = owner_of.try_emplace(
        dot == std::string_view::npos ? std::string_view() : name.substr(0, dot), owners.size());
    if (added)
      owners.push_back({at->first});
    owners[at->second].bits += ps.bits_after;
    owners[at->second].bits_before += ps.bits_before;
    owners[at->second].weights += ps.elements;
  }
  std::sort(owners.begin(), owners.end(),
            [](const Owner& a, const Owner& b) { return a.name < b.name; });
  std::vector<std::pair<std::string, double>> bpw;
  std::vector<std::pair<std::string, json>> module_bits;
  bpw.reserve(owners.size());
  module_bits.reserve(owners.size());
  for (const Owner& owner : owners)
    if (owner.weights > 0) {
      bpw.emplace_back(std::string(owner.name),
                       static_cast<double>(owner.bits) / static_cast<double>(owner.weights));
      module_bits.emplace_back(
          std::string(owner.name),
          json{{"weights", owner.weights}, {"before", owner.bits_before}, {"after", owner.bits}});
    }
  json modules(json::object_t(bpw.begin(), bpw.end()));
  json modules_bits(json::object_t(module_bits.begin(), module_bits.end()));
  return json{{"bits_per_weight", {{"before", size.bpw_before}, {"after", size.bpw_after}}},
              {"bits", {{"before", size.bits_before}, {"after", size.bits_after}}},
              {"bytes", {{"before", size.bits_before / 8}, {"after", size.bits_after / 8}}},
              {"weights", size.total_weights},
              {"modules", modules},
              {"module_bits", modules_bits}};
}

} // namespace opscope::resolve
