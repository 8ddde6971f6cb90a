#include "opscope/format/op_view.h"
#include "opscope/format/summary.h"
#include "summary_common.h"

#include <filesystem>

namespace opscope::format {
namespace {

using nlohmann::json;

json module_tree_json(const index::Index& index, const index::Module& module,
                      const SummaryOptions& options, const std::string& cwd) {
  json inputs = json::array();
  for (const auto& [spec, edges] : module.inputs) {
    json consumers = json::array();
    for (const auto& edge : edges)
      consumers.push_back({{"op", edge.op}, {"slot", edge.slot}});
    inputs.push_back({{"index", spec}, {"ops", std::move(consumers)}});
  }
  json outputs = json::array();
  for (const auto& [spec, edge] : module.outputs)
    outputs.push_back({{"index", spec}, {"op", edge.op}, {"slot", edge.slot}});
  json ops = json::array();
  for (int position : detail::visible_ops(index, module, options.compressor)) {
    index::Op shown = index.ops[position]; // with the compressor's type (eager add_ -> add)
    shown.type = index.type_for(shown, options.compressor);
    ops.push_back(op_json(shown, cwd));
  }
  json children = json::array();
  for (int child : module.children)
    children.push_back(module_tree_json(index, index.modules[child], options, cwd));
  return {{"module_name", module.name},  {"module_type", module.type},
          {"inputs", std::move(inputs)}, {"outputs", std::move(outputs)},
          {"ops", std::move(ops)},       {"children", std::move(children)}};
}

} // namespace

json summary_json(const index::Index& index, const SummaryOptions& options) {
  std::string cwd = options.cwd;
  if (cwd.empty()) {
    std::error_code ec;
    cwd = std::filesystem::current_path(ec).string();
  }
  return {{"model_type", index.model_type()},
          {"mode", index::to_string(index.mode)},
          {"compressor", index::to_string(options.compressor)},
          {"archive", index.provenance.archive},
          {"empty", detail::is_empty_summary(index, options.compressor)},
          {"model", module_tree_json(index, index.root(), options, cwd)}};
}

} // namespace opscope::format
