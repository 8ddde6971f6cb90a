#include "explain_size.h"

#include "opscope/coreai/compressors.h"

#include "opscope/resolve/size.h"

#include <cstdio>
#include <exception>

namespace opscope::coreai_explain {

nlohmann::ordered_json explain_size(const config::ConfigDocument& document,
                                    const index::Index& shown, const dialects::ExplainHost& host,
                                    const resolve::Resolution* resolution) {
  const bool eager =
      document.root != index::Compressor::MagnitudePruner &&
      coreai::config_mode(document.root, document.execution_mode) == index::Mode::Eager;
  if (!eager || shown.mode == index::Mode::Eager)
    return resolve::size_to_json(resolve::projected_size(document, shown, resolution), shown);
  try {
    const index::Index sized = host.index_in(index::Mode::Eager);
    return resolve::size_to_json(resolve::projected_size(document, sized), sized);
  } catch (const std::exception& e) {
    return {{"unavailable", std::string("the model's eager-mode index is needed: ") + e.what()}};
  }
}

std::string explain_size_line(const nlohmann::ordered_json& size) {
  if (size.contains("unavailable"))
    return "projected size: not computed (" + size["unavailable"].get<std::string>() + ")";
  auto megabytes = [](const nlohmann::ordered_json& bytes) {
    return static_cast<double>(bytes.get<long long>()) / 1e6;
  };
  char line[256];
  std::snprintf(line, sizeof line,
                "projected size: %.2f -> %.4f bits per weight, %.3f MB -> %.3f MB (%lld weights)",
                size["bits_per_weight"]["before"].get<double>(),
                size["bits_per_weight"]["after"].get<double>(), megabytes(size["bytes"]["before"]),
                megabytes(size["bytes"]["after"]), size["weights"].get<long long>());
  return line;
}

} // namespace opscope::coreai_explain
