#include "summary_common.h"

#include <algorithm>

namespace opscope::format::detail {

std::vector<int> visible_ops(const index::Index& index, const index::Module& module,
                             index::Compressor compressor) {
  std::vector<int> shown;
  for (int position : module.ops) {
    const auto& op = index.ops[position];
    if (op.kind == index::OpKind::Call && op.compressible_by(compressor))
      shown.push_back(position);
  }
  return shown;
}

bool is_empty_summary(const index::Index& index, index::Compressor compressor) {
  const auto& root = index.root();
  return root.children.empty() && visible_ops(index, root, compressor).empty();
}

std::string format_module_inputs(const index::Module& module) {
  auto inputs = module.inputs;
  std::stable_sort(inputs.begin(), inputs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "{";
  for (size_t i = 0; i < inputs.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(inputs[i].first) + ": [";
    const auto& edges = inputs[i].second;
    for (size_t k = 0; k < edges.size(); ++k)
      out += (k ? ", " : "") + edges[k].op + "[" + std::to_string(edges[k].slot) + "]";
    out += "]";
  }
  return out + "}";
}

std::string format_module_outputs(const index::Module& module) {
  auto outputs = module.outputs;
  std::stable_sort(outputs.begin(), outputs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "{";
  for (size_t i = 0; i < outputs.size(); ++i)
    out += (i ? ", " : "") + std::to_string(outputs[i].first) + ": " + outputs[i].second.op + "[" +
           std::to_string(outputs[i].second.slot) + "]";
  return out + "}";
}

} // namespace opscope::format::detail
