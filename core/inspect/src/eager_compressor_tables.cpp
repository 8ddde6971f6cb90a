// The eager-mode compressor tables: which torch functions each coreai-opt eager
// compressor registers, and under which op type. Data copied from coreai-opt 0.4.0:
//   Quantizer        coreai_opt/quantization/_eager/supported_ops_registry.py
//   KMeansPalettizer coreai_opt/palettization/kmeans/supported_ops_registry.py
//   MagnitudePruner  coreai_opt/pruning/supported_ops_registry.py
// Keys are torch.overrides.resolve_name() of each registered function object (what
// python/opscope_export/eager_trace.py records as an op's "function"); the registry
// compares function objects, and resolve_name is one name per object.
// tests/fidelity/test_eager_tables.py re-derives these from the installed coreai-opt.
#include "opscope/inspect/eager.h"

#include <array>
#include <utility>

namespace opscope::inspect {
namespace {

using Entry = std::pair<std::string_view, std::string_view>; // function -> registered type

constexpr std::array kQuantizer = {
    Entry{"torch.nn.functional.conv1d", "conv1d"},
    Entry{"torch.nn.functional.conv2d", "conv2d"},
    Entry{"torch.nn.functional.conv3d", "conv3d"},
    Entry{"torch.nn.functional.conv_transpose1d", "conv_transpose1d"},
    Entry{"torch.nn.functional.conv_transpose2d", "conv_transpose2d"},
    Entry{"torch.nn.functional.conv_transpose3d", "conv_transpose3d"},
    Entry{"torch.nn.functional.linear", "linear"},
    Entry{"torch.nn.functional.embedding", "embedding"},
    Entry{"torch.nn.functional.max_pool2d", "max_pool2d"},
    Entry{"torch.nn.functional.adaptive_avg_pool2d", "adaptive_avg_pool2d"},
    Entry{"torch.add", "add"},
    Entry{"torch.Tensor.add", "add"},
    Entry{"torch.Tensor.add_", "add"},
    Entry{"torch.matmul", "matmul"},
    Entry{"torch.Tensor.matmul", "matmul"},
    Entry{"torch.mul", "mul"},
    Entry{"torch.Tensor.mul", "mul"},
    Entry{"torch.Tensor.mul_", "mul"},
    Entry{"torch.sub", "sub"},
    Entry{"torch.Tensor.sub", "sub"},
    Entry{"torch.Tensor.sub_", "sub"},
};

constexpr std::array kKMeansPalettizer = {
    Entry{"torch.nn.functional.conv1d", "conv1d"},
    Entry{"torch.nn.functional.conv2d", "conv2d"},
    Entry{"torch.nn.functional.conv3d", "conv3d"},
    Entry{"torch.nn.functional.conv_transpose1d", "conv_transpose1d"},
    Entry{"torch.nn.functional.conv_transpose2d", "conv_transpose2d"},
    Entry{"torch.nn.functional.conv_transpose3d", "conv_transpose3d"},
    Entry{"torch.nn.functional.linear", "linear"},
    Entry{"torch.nn.functional.multi_head_attention_forward", "multi_head_attention_forward"},
};

constexpr std::array kMagnitudePruner = {
    Entry{"torch.nn.functional.linear", "linear"},
    Entry{"torch.nn.functional.conv1d", "conv1d"},
    Entry{"torch.nn.functional.conv2d", "conv2d"},
    Entry{"torch.nn.functional.conv3d", "conv3d"},
    Entry{"torch.nn.functional.conv_transpose1d", "conv_transpose1d"},
    Entry{"torch.nn.functional.conv_transpose2d", "conv_transpose2d"},
    Entry{"torch.nn.functional.conv_transpose3d", "conv_transpose3d"},
    Entry{"torch.nn.functional.multi_head_attention_forward", "multi_head_attention"},
};

template <std::size_t N>
std::optional<std::string_view> lookup(const std::array<Entry, N>& table,
                                       std::string_view function) {
  for (const auto& [registered_function, type] : table)
    if (registered_function == function)
      return type;
  return std::nullopt;
}

} // namespace

std::optional<std::string_view> eager_registered_type(index::Compressor c,
                                                      std::string_view function) {
  switch (c) {
  case index::Compressor::Quantizer:
    return lookup(kQuantizer, function);
  case index::Compressor::KMeansPalettizer:
    return lookup(kKMeansPalettizer, function);
  case index::Compressor::MagnitudePruner:
    return lookup(kMagnitudePruner, function);
  case index::Compressor::None:
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace opscope::inspect
