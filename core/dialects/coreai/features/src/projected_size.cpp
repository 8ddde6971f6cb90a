#include "opscope/features/projected_size.h"

#include "opscope/features/weight_error.h"
#include "opscope/resolve/size.h"

#include <cstdio>
#include <memory>

namespace opscope::features {
namespace {

// The size for the model's config version: the host's shared one (computed with the
// diagnostics' resolution), or computed for the call without a host.
std::shared_ptr<const resolve::ProjectedSize> size_of(const config::ConfigDocument& document,
                                                      const Model* model, bool wait) {
  if (!model || !model->index || document.root == config::Compressor::None)
    return nullptr;
  if (model->resolution)
    return wait ? model->resolution->size(document, *model->index, model->queries)
                : model->resolution->size_if_ready();
  return std::make_shared<const resolve::ProjectedSize>(
      resolve::projected_size(document, *model->index));
}

// Bytes in the unit that keeps three significant figures readable, from a tiny test model
// to a 70B one.
std::string storage(std::int64_t bits) {
  const double bytes = static_cast<double>(bits) / 8;
  char text[32];
  if (bytes >= 1e9)
    std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(text, sizeof text, "%.2f MB", bytes / 1e6);
  else if (bytes >= 1e3)
    std::snprintf(text, sizeof text, "%.2f KB", bytes / 1e3);
  else
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  return text;
}

std::string bits_per_weight(std::int64_t bits, std::int64_t weights) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f",
                weights > 0 ? static_cast<double>(bits) / static_cast<double>(weights) : 0.0);
  return text;
}

std::string before_after(std::int64_t before, std::int64_t after, std::int64_t weights) {
  return bits_per_weight(before, weights) + " -> " + bits_per_weight(after, weights) +
         " bits per weight, " + storage(before) + " -> " + storage(after);
}

} // namespace

std::vector<CodeLens> code_lenses(const config::ConfigDocument& document, const Model* model) {
  std::vector<CodeLens> lenses;
  auto size = size_of(document, model, /*wait=*/true);
  // No number, no lens: a line saying "not computed" above every config is noise; the root
  // key's hover says why.
  if (size && size->unavailable.empty())
    lenses.push_back(CodeLens{document.root_range,
                              "projected size: " + before_after(size->bits_before, size->bits_after,
                                                                size->total_weights)});
  if (auto error = weight_error_lens(document, model))
    lenses.push_back(std::move(*error));
  return lenses;
}

std::optional<std::string> root_size_text(const config::ConfigDocument& document,
                                          const Model* model) {
  auto size = size_of(document, model, /*wait=*/false);
  if (!size)
    return std::nullopt;
  if (!size->unavailable.empty())
    return "**Projected size**: not computed: " + size->unavailable + ".\n\n";
  std::size_t compressed = 0;
  for (const resolve::ParameterSize& p : size->parameters)
    compressed += p.compressed ? 1 : 0;
  const std::string how = size->graph_mode
                              ? "the weight fake-quants coreai-opt's graph-mode prepare() inserts, "
                                "counted as its bits_per_weight() counts them"
                              : "coreai-opt's bits_per_weight after prepare()";
  return "**Projected size** (" + how +
         "): " + before_after(size->bits_before, size->bits_after, size->total_weights) + "; " +
         std::to_string(compressed) + " of " + std::to_string(size->parameters.size()) +
         " tensors compressed.\n\n";
}

std::optional<std::string> module_size_text(const config::ConfigDocument& document,
                                            const Model* model, const std::vector<int>& modules) {
  auto size = size_of(document, model, /*wait=*/false);
  if (!size || !size->unavailable.empty() || modules.empty())
    return std::nullopt;
  const index::Index& index = *model->index;
  // The matched modules and everything inside them (parents precede children).
  std::vector<bool> covered(index.modules.size(), false);
  for (int m : modules)
    if (m >= 0 && static_cast<std::size_t>(m) < covered.size())
      covered[static_cast<std::size_t>(m)] = true;
  for (std::size_t m = 1; m < index.modules.size(); ++m)
    if (int parent = index.modules[m].parent;
        parent >= 0 && covered[static_cast<std::size_t>(parent)])
      covered[m] = true;
  std::vector<bool> counted(size->parameters.size(), false);
  std::int64_t weights = 0, before = 0, after = 0;
  std::size_t tensors = 0;
  for (std::size_t m = 0; m < index.modules.size(); ++m) {
    if (!covered[m])
      continue;
    for (int p : index.module_parameters(m)) {
      auto i = static_cast<std::size_t>(p);
      if (i >= size->parameters.size() || counted[i])
        continue; // a tied tensor counts once
      counted[i] = true;
      const resolve::ParameterSize& ps = size->parameters[i];
      weights += ps.elements;
      before += ps.bits_before;
      after += ps.bits_after;
      ++tensors;
    }
  }
  if (tensors == 0)
    return std::nullopt;
  return "**Projected size** of these modules (" + std::to_string(tensors) +
         (tensors == 1 ? " tensor" : " tensors") + "): " + before_after(before, after, weights) +
         ".\n\n";
}

} // namespace opscope::features
