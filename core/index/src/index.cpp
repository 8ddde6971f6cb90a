#include "opscope/index/index.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>

namespace opscope::index {

namespace {
// coreai-opt's _FRAMEWORK_PATH_MARKERS: frames in PyTorch itself are never "the source".
constexpr std::array<std::string_view, 3> kFrameworkPathMarkers = {
    "torch/nn/modules/", "torch/nn/functional", "torch/_"};

bool is_framework_file(const std::string& file) {
  for (auto marker : kFrameworkPathMarkers)
    if (file.find(marker) != std::string::npos)
      return true;
  return false;
}
} // namespace

const SourceFrame* user_frame(const Op& op) {
  for (auto frame = op.source.rbegin(); frame != op.source.rend(); ++frame)
    if (!is_framework_file(frame->file))
      return &*frame;
  return nullptr;
}

std::int64_t Parameter::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape)
    n *= d;
  return n;
}

int Parameter::element_bits() const {
  static const std::unordered_map<std::string_view, int> kBits = {
      {"float64", 64},      {"float32", 32},    {"float16", 16},        {"bfloat16", 16},
      {"int64", 64},        {"int32", 32},      {"int16", 16},          {"int8", 8},
      {"uint8", 8},         {"bool", 8},        {"uint16", 16},         {"uint32", 32},
      {"uint64", 64},       {"complex64", 64},  {"complex128", 128},    {"complex32", 32},
      {"float8_e4m3fn", 8}, {"float8_e5m2", 8}, {"float8_e4m3fnuz", 8}, {"float8_e5m2fnuz", 8},
      {"float8_e8m0fnu", 8}};
  auto it = kBits.find(dtype);
  return it == kBits.end() ? 0 : it->second;
}

std::string owner_module_name(const std::string& parameter_name) {
  auto dot = parameter_name.rfind('.');
  return dot == std::string::npos ? std::string() : parameter_name.substr(0, dot);
}

const Parameter* Index::find_parameter(const std::string& name) const {
  auto it = parameter_by_name_.find(name);
  return it == parameter_by_name_.end() ? nullptr : &parameters[it->second];
}

const std::vector<int>& Index::op_parameters(std::size_t op) const {
  static const std::vector<int> kNone;
  return op < op_parameters_.size() ? op_parameters_[op] : kNone;
}

const std::vector<int>& Index::module_parameters(std::size_t module) const {
  static const std::vector<int> kNone;
  return module < module_parameters_.size() ? module_parameters_[module] : kNone;
}

const Op* Index::find_op(const std::string& name) const {
  auto it = op_by_name_.find(name);
  return it == op_by_name_.end() ? nullptr : &ops[it->second];
}

const Module* Index::find_module(const std::string& name) const {
  auto it = module_by_name_.find(name);
  return it == module_by_name_.end() ? nullptr : &modules[it->second];
}

int Index::module_object(std::size_t module) const {
  return module < module_object_of_.size() ? module_object_of_[module] : -1;
}

int Index::find_module_object(const std::string& name) const {
  auto it = module_object_by_name_.find(name);
  return it == module_object_by_name_.end() ? -1 : it->second;
}

const std::string& Index::canonical_name(std::size_t module) const {
  int object = module_object(module);
  return object >= 0 ? module_objects[static_cast<std::size_t>(object)].name : modules[module].name;
}

const std::string& Index::type_for(const Op& op, Compressor c) const {
  if (auto it = compressor_types.find(op.name); it != compressor_types.end())
    for (const auto& [compressor, type] : it->second)
      if (compressor == c)
        return type;
  return op.type;
}

void Index::rebuild_lookups() {
  op_by_name_.clear();
  module_by_name_.clear();
  op_by_name_.reserve(ops.size());
  for (int i = 0; i < static_cast<int>(ops.size()); ++i)
    op_by_name_.emplace(ops[i].name, i);
  for (int i = 0; i < static_cast<int>(modules.size()); ++i)
    module_by_name_.emplace(modules[i].name, i);
  parameter_by_name_.clear();
  module_parameters_.assign(modules.size(), {});
  for (int i = 0; i < static_cast<int>(parameters.size()); ++i) {
    const Parameter& p = parameters[i];
    parameter_by_name_.emplace(p.name, i);
    for (const auto& alias : p.aliases)
      parameter_by_name_.emplace(alias, i);
    // The owners under every name; a module owning one tensor under two names lists it once.
    auto add_owner = [&](const std::string& name) {
      if (auto it = module_by_name_.find(owner_module_name(name)); it != module_by_name_.end()) {
        auto& owned = module_parameters_[static_cast<std::size_t>(it->second)];
        if (owned.empty() || owned.back() != i)
          owned.push_back(i);
      }
    };
    add_owner(p.name);
    for (const auto& alias : p.aliases)
      add_owner(alias);
  }
  op_parameters_.assign(ops.size(), {});
  for (std::size_t o = 0; o < ops.size(); ++o)
    for (const auto& edge : ops[o].inputs)
      if (edge.is_state)
        if (auto it = parameter_by_name_.find(edge.producer); it != parameter_by_name_.end())
          op_parameters_[o].push_back(it->second);
  module_object_by_name_.clear();
  for (int i = 0; i < static_cast<int>(module_objects.size()); ++i) {
    module_object_by_name_.emplace(module_objects[static_cast<std::size_t>(i)].name, i);
    for (const auto& alias : module_objects[static_cast<std::size_t>(i)].aliases)
      module_object_by_name_.emplace(alias, i);
  }
  module_object_of_.assign(modules.size(), -1);
  if (!module_objects.empty())
    for (std::size_t m = 0; m < modules.size(); ++m)
      module_object_of_[m] = find_module_object(modules[m].name);
}

} // namespace opscope::index
