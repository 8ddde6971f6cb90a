// The compressor table and the registries of coreai-opt 0.4.0, as data. When coreai-opt
// changes, tests/fidelity/test_compressor_tables.py names what differs (it compares the
// tables as compiled, through tests/fidelity/dump_compressor_tables.cpp, with the
// installed coreai-opt's registries).
#include "opscope/coreai/compressors.h"

#include <algorithm>
#include <array>

namespace opscope::coreai {
namespace {

using Fn = RegisteredFunction;

// ---- Quantizer ------------------------------------------------------------------------

// coreai_opt/quantization/_graph/_annotation_pattern_registry.py, the WeightedModulePattern
// subclasses (conv*, conv_transpose*, linear*, embedding, with or without bn/activation).
// They match with SubgraphMatcher (ignore_literals=True, placeholders are wildcards) and
// key each match by the op consuming the weight, so every node whose aten target is the
// pattern's weighted op is selected (match_pattern_with_subgraph_matcher in
// _annotation_utils.py). Targets as the pattern graphs export them in torch 2.13.
constexpr std::array<std::string_view, 11> kQuantizerGraphTargets = {
    "torch.ops.aten.conv1d.default",           "torch.ops.aten.conv1d.padding",
    "torch.ops.aten.conv2d.default",           "torch.ops.aten.conv2d.padding",
    "torch.ops.aten.conv3d.default",           "torch.ops.aten.conv3d.padding",
    "torch.ops.aten.conv_transpose1d.default", "torch.ops.aten.conv_transpose2d.input",
    "torch.ops.aten.conv_transpose3d.input",   "torch.ops.aten.linear.default",
    "torch.ops.aten.embedding.default",
};

// The NAryActPattern and SharedObserverModulePattern subclasses (matmul, einsum, add, mul,
// sub, flatten, maxpool, avgpool, concat, each also with an activation appended). They
// match chains by `get_node_type` and key each by its first node
// (match_pattern_with_sequential_partitions); the single-op patterns have no branching
// condition, so a node is selected exactly when its op type is one of these.
constexpr std::array<std::string_view, 22> kQuantizerGraphTypes = {
    "matmul",
    "einsum",
    "add",
    "add_",
    "mul",
    "mul_",
    "sub",
    "sub_",
    "isub",
    "flatten",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "mean",
    "cat",
    "concat",
};

// coreai_opt/quantization/_eager/supported_ops_registry.py
constexpr std::array kQuantizerEager = {
    Fn{"torch.nn.functional.conv1d", "conv1d"},
    Fn{"torch.nn.functional.conv2d", "conv2d"},
    Fn{"torch.nn.functional.conv3d", "conv3d"},
    Fn{"torch.nn.functional.conv_transpose1d", "conv_transpose1d"},
    Fn{"torch.nn.functional.conv_transpose2d", "conv_transpose2d"},
    Fn{"torch.nn.functional.conv_transpose3d", "conv_transpose3d"},
    Fn{"torch.nn.functional.linear", "linear"},
    Fn{"torch.nn.functional.embedding", "embedding"},
    Fn{"torch.nn.functional.max_pool2d", "max_pool2d"},
    Fn{"torch.nn.functional.adaptive_avg_pool2d", "adaptive_avg_pool2d"},
    Fn{"torch.add", "add"},
    Fn{"torch.Tensor.add", "add"},
    Fn{"torch.Tensor.add_", "add"},
    Fn{"torch.matmul", "matmul"},
    Fn{"torch.Tensor.matmul", "matmul"},
    Fn{"torch.mul", "mul"},
    Fn{"torch.Tensor.mul", "mul"},
    Fn{"torch.Tensor.mul_", "mul"},
    Fn{"torch.sub", "sub"},
    Fn{"torch.Tensor.sub", "sub"},
    Fn{"torch.Tensor.sub_", "sub"},
};

// QuantizationConfig's fields beyond global/module_type/module_name configs.
constexpr std::array<std::string_view, 3> kQuantizerTopFields = {
    "execution_mode", "preserved_attributes", "kv_cache_quant_configs"};
constexpr std::array<std::string_view, 1> kQuantizerModuleFields = {"qat_schedule"};

// ---- KMeansPalettizer -----------------------------------------------------------------

// coreai_opt/palettization/kmeans/supported_ops_registry.py
constexpr std::array kKMeansPalettizerEager = {
    Fn{"torch.nn.functional.conv1d", "conv1d"},
    Fn{"torch.nn.functional.conv2d", "conv2d"},
    Fn{"torch.nn.functional.conv3d", "conv3d"},
    Fn{"torch.nn.functional.conv_transpose1d", "conv_transpose1d"},
    Fn{"torch.nn.functional.conv_transpose2d", "conv_transpose2d"},
    Fn{"torch.nn.functional.conv_transpose3d", "conv_transpose3d"},
    Fn{"torch.nn.functional.linear", "linear"},
    Fn{"torch.nn.functional.multi_head_attention_forward", "multi_head_attention_forward"},
};

constexpr std::array<std::string_view, 4> kKMeansPalettizerModuleFields = {
    "enable_fast_kmeans_mode", "rounding_precision", "pat_schedule", "vector_kmeans_config"};

// ---- MagnitudePruner ------------------------------------------------------------------

// coreai_opt/pruning/supported_ops_registry.py. coreai-opt prunes in eager mode only; the
// graph table selects the nodes these functions became in an exported graph (every node
// of an F.multi_head_attention_forward call has op type multi_head_attention_forward),
// filed under the same registered types as in eager mode.
constexpr std::array kMagnitudePrunerEager = {
    Fn{"torch.nn.functional.linear", "linear"},
    Fn{"torch.nn.functional.conv1d", "conv1d"},
    Fn{"torch.nn.functional.conv2d", "conv2d"},
    Fn{"torch.nn.functional.conv3d", "conv3d"},
    Fn{"torch.nn.functional.conv_transpose1d", "conv_transpose1d"},
    Fn{"torch.nn.functional.conv_transpose2d", "conv_transpose2d"},
    Fn{"torch.nn.functional.conv_transpose3d", "conv_transpose3d"},
    Fn{"torch.nn.functional.multi_head_attention_forward", "multi_head_attention"},
};

constexpr std::array<std::string_view, 1> kMagnitudePrunerModuleFields = {"sparsity_schedule"};

// ---- The table ------------------------------------------------------------------------

constexpr std::array kCompressors = {
    CompressorInfo{
        .id = Compressor::Quantizer,
        .name = "quantizer",
        .class_name = "Quantizer",
        .verb = "quantizes",
        .root_key = "quantization_config",
        .spec_key = "quantization_spec",
        .graph_mode = true,
        .eager_mode = true,
        .weight_only = false,
        .top_config_fields = kQuantizerTopFields,
        .module_config_fields = kQuantizerModuleFields,
        .graph = {.aten_targets = kQuantizerGraphTargets,
                  .op_types = kQuantizerGraphTypes,
                  .functions = {}},
        .eager = kQuantizerEager,
    },
    CompressorInfo{
        .id = Compressor::KMeansPalettizer,
        .name = "kmeans_palettizer",
        .class_name = "KMeansPalettizer",
        .verb = "palettizes",
        .root_key = "kmeans_palettization_config",
        .spec_key = "palettization_spec",
        .graph_mode = false,
        .eager_mode = true,
        .weight_only = true,
        .top_config_fields = {},
        .module_config_fields = kKMeansPalettizerModuleFields,
        .graph = {},
        .eager = kKMeansPalettizerEager,
    },
    CompressorInfo{
        .id = Compressor::MagnitudePruner,
        .name = "magnitude_pruner",
        .class_name = "MagnitudePruner",
        .verb = "prunes",
        .root_key = "magnitude_pruning_config",
        .spec_key = "pruning_spec",
        .graph_mode = false,
        .eager_mode = true,
        .weight_only = true,
        .top_config_fields = {},
        .module_config_fields = kMagnitudePrunerModuleFields,
        .graph = {.aten_targets = {}, .op_types = {}, .functions = kMagnitudePrunerEager},
        .eager = kMagnitudePrunerEager,
    },
};

template <typename T> bool contains(std::span<const T> table, std::string_view value) {
  return !value.empty() && std::find(table.begin(), table.end(), value) != table.end();
}

// `torch.nn.functional.linear` -> `linear`: the name torch_fn records for the function.
std::string_view function_name(std::string_view function) {
  auto dot = function.rfind('.');
  return dot == std::string_view::npos ? function : function.substr(dot + 1);
}

} // namespace

std::span<const CompressorInfo> compressors() {
  return kCompressors;
}

std::uint8_t all_compressor_bits() {
  std::uint8_t bits = 0;
  for (const CompressorInfo& info : kCompressors)
    bits |= static_cast<std::uint8_t>(info.id);
  return bits;
}

const CompressorInfo* find(Compressor c) {
  for (const CompressorInfo& info : kCompressors)
    if (info.id == c)
      return &info;
  return nullptr;
}

const CompressorInfo* find_by_root_key(std::string_view root_key) {
  for (const CompressorInfo& info : kCompressors)
    if (info.root_key == root_key)
      return &info;
  return nullptr;
}

const char* to_string(Compressor c) {
  const CompressorInfo* info = find(c);
  return info ? info->name.data() : "none";
}

std::optional<Compressor> parse_compressor(std::string_view name) {
  if (name == "none")
    return Compressor::None;
  for (const CompressorInfo& info : kCompressors)
    if (info.name == name)
      return info.id;
  return std::nullopt;
}

namespace {
// The table's `field` of every compressor, listed: "a, b or c" (`last` before the last).
std::string listed(std::string_view CompressorInfo::*field, std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < kCompressors.size(); ++i) {
    if (i > 0)
      out += i + 1 == kCompressors.size() ? std::string(last) : std::string(", ");
    out += kCompressors[i].*field;
  }
  return out;
}

constexpr std::string_view kConfigSuffix = "Config";
// The prefix of each ConfigLevel's class, in the enum's order.
constexpr std::array<std::string_view, 3> kConfigPrefixes = {"", "Module", "Op"};
} // namespace

std::optional<ConfigClass> find_config_class(std::string_view class_name) {
  if (!class_name.ends_with(kConfigSuffix))
    return std::nullopt;
  class_name.remove_suffix(kConfigSuffix.size());
  for (const CompressorInfo& info : kCompressors)
    for (std::size_t level = 0; level < kConfigPrefixes.size(); ++level)
      if (class_name.size() == kConfigPrefixes[level].size() + info.class_name.size() &&
          class_name.starts_with(kConfigPrefixes[level]) && class_name.ends_with(info.class_name))
        return ConfigClass{info.id, static_cast<ConfigLevel>(level)};
  return std::nullopt;
}

std::string config_class(const CompressorInfo& info, ConfigLevel level) {
  return std::string(kConfigPrefixes[static_cast<std::size_t>(level)]) +
         std::string(info.class_name) + std::string(kConfigSuffix);
}

std::string compressor_names(std::string_view last) {
  return listed(&CompressorInfo::name, last);
}

std::string root_key_names() {
  return listed(&CompressorInfo::root_key, " or ");
}

const char* to_string(Mode mode) {
  return mode == Mode::Graph ? "graph" : "eager";
}

std::optional<Mode> parse_mode(std::string_view text) {
  if (text == "graph")
    return Mode::Graph;
  if (text == "eager")
    return Mode::Eager;
  return std::nullopt;
}

bool mode_supports(Mode mode, Compressor c) {
  const CompressorInfo* info = find(c);
  return !info || (mode == Mode::Graph ? info->graph_mode : info->eager_mode);
}

Mode default_mode(Compressor c) {
  return mode_supports(Mode::Graph, c) ? Mode::Graph : Mode::Eager;
}

std::optional<Mode> execution_mode_value(std::string_view written) {
  if (written == "pt2e" || written == "PT2E") // ExecutionMode.__deprecated_aliases__
    return Mode::Graph;
  return parse_mode(written);
}

Mode config_mode(Compressor root, const std::optional<std::string>& execution_mode) {
  if (!mode_supports(Mode::Graph, root))
    return Mode::Eager;
  if (!execution_mode)
    return Mode::Graph;
  return execution_mode_value(*execution_mode).value_or(Mode::Graph);
}

std::optional<std::string_view> eager_registered_type(Compressor c, std::string_view function) {
  if (const CompressorInfo* info = find(c))
    for (const RegisteredFunction& entry : info->eager)
      if (entry.function == function)
        return entry.type;
  return std::nullopt;
}

std::optional<std::string_view> graph_registered_type(Compressor c, std::string_view aten_target,
                                                      std::string_view op_type) {
  const CompressorInfo* info = find(c);
  if (!info)
    return std::nullopt;
  const GraphRegistry& graph = info->graph;
  if (contains(graph.aten_targets, aten_target) || contains(graph.op_types, op_type))
    return op_type;
  if (!op_type.empty())
    for (const RegisteredFunction& entry : graph.functions)
      if (function_name(entry.function) == op_type)
        return entry.type;
  return std::nullopt;
}

} // namespace opscope::coreai
