#include "opscope/index/index.h"

#include <array>
#include <string_view>

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

const Op* Index::find_op(const std::string& name) const {
  auto it = op_by_name_.find(name);
  return it == op_by_name_.end() ? nullptr : &ops[it->second];
}

const Module* Index::find_module(const std::string& name) const {
  auto it = module_by_name_.find(name);
  return it == module_by_name_.end() ? nullptr : &modules[it->second];
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
}

} // namespace opscope::index
