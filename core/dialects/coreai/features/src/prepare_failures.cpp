#include "opscope/features/prepare_failures.h"

#include "opscope/resolve/size.h"
#include "resolution.h"

#include <map>
#include <string>
#include <utility>

namespace opscope::features {

std::vector<Diagnostic> prepare_failures(const config::ConfigDocument& document,
                                         const index::Index& index,
                                         const resolve::EagerWeights& weights) {
  std::vector<Diagnostic> out;
  if (document.root != config::Compressor::Quantizer)
    return out;
  struct Failure {
    std::string granularity;
    std::vector<std::string> weights; // "name (module type)"
  };
  std::map<std::pair<int, int>, Failure> by_entry; // (decider kind, key)
  std::vector<resolve::Decider> order;
  for (const resolve::WeightDecision& w : weights.parameters) {
    if (!w.spec.is_object() || w.decider.kind == resolve::Decider::Kind::DefaultGlobal)
      continue;
    const index::Parameter& p = index.parameters[static_cast<std::size_t>(w.parameter)];
    const index::Module* owner = index.find_module(index::owner_module_name(p.name));
    if (!owner)
      continue;
    std::optional<std::string> granularity = resolve::quantizer_axis_missing(w.spec, owner->type);
    if (!granularity)
      continue;
    auto [it, added] =
        by_entry.try_emplace({static_cast<int>(w.decider.kind), w.decider.key}, Failure{});
    if (added) {
      it->second.granularity = *granularity;
      order.push_back(w.decider);
    }
    it->second.weights.push_back(p.name + " (" + owner->type + ")");
  }
  for (const resolve::Decider& decider : order) {
    const Failure& f = by_entry[{static_cast<int>(decider.kind), decider.key}];
    std::optional<config::Range> range;
    if (decider.kind == resolve::Decider::Kind::Key)
      range = document.keys[static_cast<std::size_t>(decider.key)].range;
    else
      range = document.global_config_range;
    if (!range)
      continue;
    std::string listed;
    for (std::size_t i = 0; i < f.weights.size() && i < 3; ++i)
      listed += (i ? ", " : "") + f.weights[i];
    if (f.weights.size() > 3)
      listed += " and " + std::to_string(f.weights.size() - 3) + " more";
    out.push_back(
        {*range,
         Severity::Error,
         "prepare-raises",
         "coreai-opt's prepare() raises ValueError with this entry: its weight granularity `" +
             f.granularity + "` has no axis, and " + std::to_string(f.weights.size()) +
             (f.weights.size() == 1 ? " weight it reaches belongs" : " weights it reaches belong") +
             " to a module type with no default axis (only Linear, Conv, ConvTranspose and "
             "Embedding have one): " +
             listed +
             "; give the granularity an `axis`, or give those modules an entry of "
             "their own (`null` leaves them in full precision)",
         {}});
  }
  return out;
}

} // namespace opscope::features
