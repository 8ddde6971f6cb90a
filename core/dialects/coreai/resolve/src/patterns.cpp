#include "patterns.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace opscope::resolve {
namespace {

// _annotation_utils._supported_activations + _supported_activations_no_inplace, by
// __name__ (the NAry patterns' element names).
constexpr std::array<std::string_view, 16> kActivations = {
    "relu",     "relu6",     "leaky_relu",  "silu", "elu",     "celu",       "selu", "mish",
    "hardtanh", "hardswish", "hardsigmoid", "gelu", "sigmoid", "logsigmoid", "tanh", "softmax"};

// The weighted patterns trace the in-place form too (act_fn(inplace=True)), matched by aten
// target: `x.relu_()` records the type `relu_`.
bool weighted_activation(std::string_view type) {
  if (!type.empty() && type.back() == '_')
    type.remove_suffix(1);
  return std::find(kActivations.begin(), kActivations.end(), type) != kActivations.end();
}

bool activation(std::string_view type) {
  return std::find(kActivations.begin(), kActivations.end(), type) != kActivations.end();
}

constexpr std::array<std::string_view, 8> kWeighted = {
    "conv1d",           "conv2d",           "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "linear", "embedding"};
constexpr std::array<std::string_view, 6> kNAryWithActivation = {"matmul", "einsum", "add",
                                                                 "add_",   "mul",    "mul_"};

bool in(std::string_view type, auto const& table) {
  return std::find(table.begin(), table.end(), type) != table.end();
}

// The distinct call ops (or the graph output) reading `op`'s outputs, in first-use order.
std::vector<int> users(const index::Index& index, const index::Op& op) {
  std::vector<int> out;
  for (const auto& [slot, consumers] : op.outputs)
    for (const std::string& name : consumers)
      if (const index::Op* user = index.find_op(name)) {
        int id = static_cast<int>(user - index.ops.data());
        if (std::find(out.begin(), out.end(), id) == out.end())
          out.push_back(id);
      } else {
        out.push_back(-1); // something the index does not hold still counts as a user
      }
  return out;
}

const std::string& type_of(const index::Index& index, int op) {
  return index.ops[static_cast<std::size_t>(op)].type;
}

bool is_call(const index::Index& index, int op) {
  return op >= 0 && index.ops[static_cast<std::size_t>(op)].kind == index::OpKind::Call;
}

} // namespace

std::vector<PatternMatch> quantizer_pattern_matches(const index::Index& index, int op) {
  const index::Op& primary = index.ops[static_cast<std::size_t>(op)];
  const std::string& type = index.type_for(primary, index::Compressor::Quantizer);
  std::vector<PatternMatch> out;
  std::vector<int> next = users(index, primary);
  bool single = next.size() == 1 && is_call(index, next.front());
  if (in(type, kWeighted) && type != "embedding") {
    // The weighted op's output is internal to a longer pattern: it may feed nothing else.
    if (single && type_of(index, next.front()) == "batch_norm") {
      int bn = next.front();
      // The batch norm is one of the pattern's outputs (node_dict "bn"): it may feed more.
      for (int act : users(index, index.ops[static_cast<std::size_t>(bn)]))
        if (is_call(index, act) && weighted_activation(type_of(index, act))) {
          out.push_back({{op, bn, act}});
          break;
        }
      out.push_back({{op, bn}});
    } else if (single && weighted_activation(type_of(index, next.front()))) {
      out.push_back({{op, next.front()}});
    }
  } else if (in(type, kNAryWithActivation)) {
    if (single && activation(type_of(index, next.front())))
      out.push_back({{op, next.front()}});
  }
  out.push_back({{op}});
  return out;
}

} // namespace opscope::resolve
