#include "explain_pruner.h"

#include "opscope/config/values.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/pruner.h"

#include <algorithm>
#include <array>
#include <iostream>
#include <string>
#include <vector>

namespace opscope::cli {
namespace {

using json = nlohmann::ordered_json;

json entry_of(const config::ConfigDocument& doc, const resolve::Decider& decider) {
  if (decider.kind == resolve::Decider::Kind::DefaultGlobal)
    return nullptr;
  return {{"path", resolve::decider_path(doc, decider)},
          {"line", resolve::decider_line(doc, decider) + 1}};
}

std::vector<resolve::WeightDecision> reached(const config::ConfigDocument& document,
                                             const index::Index& index) {
  auto values = config::read_values(document.text, document.format);
  if (!values)
    throw std::runtime_error("the config's values cannot be read (no mapping at its root, or "
                             "more than a million values after aliases)");
  std::vector<resolve::WeightDecision> out;
  for (resolve::WeightDecision& w :
       resolve::resolve_eager_weights(document, *values, index).parameters)
    if (!w.spec_table.empty())
      out.push_back(std::move(w));
  return out;
}

std::string module_name(const index::Index& index, int module) {
  return module < 0 ? std::string() : index.modules[static_cast<std::size_t>(module)].name;
}

} // namespace

json pruned_parameters_json(const config::ConfigDocument& document, const index::Index& index) {
  json out = json::array();
  for (const resolve::WeightDecision& w : reached(document, index))
    out.push_back({{"parameter", index.parameters[static_cast<std::size_t>(w.parameter)].name},
                   {"module", module_name(index, w.module)},
                   {"entry", entry_of(document, w.decider)},
                   {"spec_table", w.spec_table},
                   {"spec_key", w.spec_key},
                   {"spec", resolve::filled_pruning_spec(w.spec)}});
  return out;
}

void print_pruned_parameters(const config::ConfigDocument& document, const index::Index& index) {
  std::vector<std::array<std::string, 3>> rows;
  std::size_t dense = 0;
  for (const resolve::WeightDecision& w : reached(document, index)) {
    json spec = resolve::filled_pruning_spec(w.spec);
    std::string what = "dense";
    if (spec.is_object()) {
      what = spec["target_sparsity"].dump() + " " +
             (spec["pruning_scheme"].is_object()
                  ? spec["pruning_scheme"].value("type", std::string("?"))
                  : spec["pruning_scheme"].dump());
    } else {
      ++dense;
    }
    std::string entry = "(default global_config)";
    if (w.decider.kind != resolve::Decider::Kind::DefaultGlobal) {
      std::vector<std::string> path = resolve::decider_path(document, w.decider);
      entry.clear();
      for (std::size_t i = 1; i < path.size(); ++i)
        entry += (i > 1 ? " > " : "") + path[i];
      entry += "  :" + std::to_string(resolve::decider_line(document, w.decider) + 1);
    }
    rows.push_back({index.parameters[static_cast<std::size_t>(w.parameter)].name, what,
                    entry + "  [" + w.spec_table + " " + w.spec_key + "]"});
  }
  std::size_t w0 = 9, w1 = 8;
  for (const auto& r : rows) {
    w0 = std::max(w0, r[0].size());
    w1 = std::max(w1, r[1].size());
  }
  auto pad = [](const std::string& s, std::size_t w) { return s + std::string(w - s.size(), ' '); };
  std::cout << "\n" << pad("parameter", w0) << "  " << pad("sparsity", w1) << "  deciding entry\n";
  for (const auto& r : rows)
    std::cout << pad(r[0], w0) << "  " << pad(r[1], w1) << "  " << r[2] << "\n";
  std::cout << rows.size() << " parameters reached by the MagnitudePruner, " << dense
            << " left dense\n";
}

} // namespace opscope::cli
