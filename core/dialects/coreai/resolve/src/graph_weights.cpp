#include "opscope/resolve/graph_weights.h"

#include "state_specs.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace opscope::resolve {
namespace {

using json = nlohmann::ordered_json;

// The op state spec dicts of the entries deciding ops, each read once.
class StateDicts {
public:
  StateDicts(const config::ConfigDocument& document, const json& values)
      : document_(document), values_(values) {}

  const json& of(const Decider& decider) {
    auto [it, added] = dicts_.try_emplace({static_cast<int>(decider.kind), decider.key});
    if (added) {
      const json config = detail::entry_config(document_, values_, decider);
      const json fallback = config.is_null() && decider.kind != Decider::Kind::DefaultGlobal
                                ? json{{"*", nullptr}}
                                : detail::default_state_spec(index::Compressor::Quantizer);
      it->second = detail::spec_dict(config, "op_state_spec", fallback);
    }
    return it->second;
  }

private:
  const config::ConfigDocument& document_;
  const json& values_;
  std::map<std::pair<int, int>, json> dicts_;
};

// The module_state_spec of each entry, read once; unlike the op spec dicts, a null
// module_state_spec is no spec at all (ModuleQuantizerConfig validates it to {}).
class ModuleStateDicts {
public:
  ModuleStateDicts(const config::ConfigDocument& document, const json& values)
      : document_(document), values_(values) {}

  // Empty unless `decision` matched its module directly: _prepare_config_for_child drops
  // module-level specs from the children an entry claims.
  const json& of(const ModuleDecision& decision) {
    static const json kNone = json::object();
    if (!decision.direct)
      return kNone;
    const Decider& d = decision.decider;
    auto [it, added] = dicts_.try_emplace({static_cast<int>(d.kind), d.key}, json::object());
    if (added) {
      const json config = detail::entry_config(document_, values_, d);
      if (config.is_object() && config.contains("module_state_spec") &&
          config["module_state_spec"].is_object())
        it->second = config["module_state_spec"];
    }
    return it->second;
  }

private:
  const config::ConfigDocument& document_;
  const json& values_;
  std::map<std::pair<int, int>, json> dicts_;
};

// annotate_module_level_specs, after the reconciliation: the first owner (by module priority)
// whose module_state_spec names the tensor decides it for every op reading it.
void apply_module_state_specs(const config::ConfigDocument& document, const json& values,
                              const index::Index& index, const Resolution& resolution,
                              std::vector<WeightDecision>& out) {
  const std::size_t modules = std::min(index.modules.size(), resolution.modules.size());
  ModuleStateDicts module_state(document, values);
  std::vector<const json*> dicts(modules);
  bool any = false;
  for (std::size_t m = 0; m < modules; ++m) {
    dicts[m] = &module_state.of(resolution.modules[m]);
    any = any || !dicts[m]->empty();
  }
  if (!any)
    return;
  std::vector<std::vector<int>> owners(index.parameters.size());
  for (std::size_t m = 0; m < modules; ++m)
    if (!dicts[m]->empty())
      for (int p : index.module_parameters(m))
        owners[static_cast<std::size_t>(p)].push_back(static_cast<int>(m));
  std::vector<int> module_of(index.ops.size(), 0);
  for (std::size_t m = 0; m < index.modules.size(); ++m)
    for (int op : index.modules[m].ops)
      if (op >= 0 && static_cast<std::size_t>(op) < module_of.size())
        module_of[static_cast<std::size_t>(op)] = static_cast<int>(m);
  std::vector<std::vector<int>> readers(index.parameters.size());
  for (std::size_t o = 0; o < index.ops.size(); ++o)
    if (index.ops[o].kind == index::OpKind::Call)
      for (int p : index.op_parameters(o)) {
        auto& r = readers[static_cast<std::size_t>(p)];
        if (r.empty() || r.back() != static_cast<int>(o))
          r.push_back(static_cast<int>(o));
      }
  for (std::size_t p = 0; p < index.parameters.size(); ++p) {
    std::vector<int>& by_priority = owners[p];
    if (by_priority.empty() || readers[p].empty() || !detail::optimizable(index.parameters[p]))
      continue;
    std::stable_sort(by_priority.begin(), by_priority.end(), [&](int a, int b) {
      return resolution.modules[static_cast<std::size_t>(a)].priority <
             resolution.modules[static_cast<std::size_t>(b)].priority;
    });
    for (int m : by_priority) {
      auto match = detail::last_matching(*dicts[static_cast<std::size_t>(m)], index.parameters[p]);
      if (!match)
        continue;
      WeightDecision& w = out[p];
      w.spec = *match->second;
      w.spec_table = "module_state_spec";
      w.spec_key = match->first;
      w.decider = resolution.modules[static_cast<std::size_t>(m)].decider;
      w.module = m;
      w.op = -1;
      w.readers.clear();
      for (int op : readers[p]) // every reader takes the module's spec, whatever its entry
        w.readers.push_back({op, module_of[static_cast<std::size_t>(op)], w.decider, w.decider});
      break;
    }
  }
}

// ATEN_OP_TO_MODULE_TYPE (_utils/torch_utils.py): the module whose default weight axes a
// graph fake-quant consumed by this op takes.
std::string_view axis_module_of_op(std::string_view op_type) {
  static const std::map<std::string_view, std::string_view> kModuleOfOp = {
      {"conv1d", "torch.nn.modules.conv.Conv1d"},
      {"conv2d", "torch.nn.modules.conv.Conv2d"},
      {"conv3d", "torch.nn.modules.conv.Conv3d"},
      {"conv_transpose1d", "torch.nn.modules.conv.ConvTranspose1d"},
      {"conv_transpose2d", "torch.nn.modules.conv.ConvTranspose2d"},
      {"conv_transpose3d", "torch.nn.modules.conv.ConvTranspose3d"},
      {"linear", "torch.nn.modules.linear.Linear"},
      {"embedding", "torch.nn.modules.sparse.Embedding"}};
  auto it = kModuleOfOp.find(op_type);
  return it == kModuleOfOp.end() ? std::string_view() : it->second;
}

} // namespace

std::vector<WeightDecision> resolve_graph_weights(const config::ConfigDocument& document,
                                                  const json& values, const index::Index& index,
                                                  const Resolution& resolution) {
  std::vector<WeightDecision> out(index.parameters.size());
  for (std::size_t p = 0; p < out.size(); ++p)
    out[p].parameter = static_cast<int>(p);
  StateDicts dicts(document, values);
  std::vector<int> decided_rank(index.parameters.size(), -1);
  for (const OpDecision& d : resolution.ops) {
    if (d.primary != d.op) // a pattern member (the bn, the relu): the primary's specs only
      continue;
    const json& dict = dicts.of(d.decider);
    for (int p : index.op_parameters(static_cast<std::size_t>(d.op))) {
      const index::Parameter& param = index.parameters[static_cast<std::size_t>(p)];
      if (!detail::optimizable(param))
        continue;
      auto match = detail::last_matching(dict, param);
      if (!match)
        continue; // no opinion: this reader's edge stays out of the tensor's fake-quant
      WeightDecision& w = out[static_cast<std::size_t>(p)];
      if (!w.readers.empty() && w.readers.back().op == d.op)
        continue; // one op reading it twice
      w.readers.push_back({d.op, d.module, d.decider, d.module_entry});
      int& rank = decided_rank[static_cast<std::size_t>(p)];
      if (rank >= 0 && rank <= d.rank)
        continue; // a reader annotated earlier decides
      rank = d.rank;
      w.spec = *match->second;
      w.spec_table = "op_state_spec";
      w.spec_key = match->first;
      w.decider = d.decider;
      w.module = d.module;
      w.op = d.op;
    }
  }
  apply_module_state_specs(document, values, index, resolution, out);
  return out;
}

std::string graph_axis_module_type(const index::Index& index, const WeightDecision& weight) {
  for (const WeightDecision::Reader& r : weight.readers) {
    const index::Op& op = index.ops[static_cast<std::size_t>(r.op)];
    std::string_view module = axis_module_of_op(index.type_for(op, index::Compressor::Quantizer));
    if (!module.empty())
      return std::string(module);
  }
  return {};
}

} // namespace opscope::resolve
