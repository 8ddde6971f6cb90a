// `opscope explain CONFIG --html OUT.html` (issue 28): the model as a treemap, one rectangle
// per module owning weights, its area the module's bytes, its colour its bits per weight or
// the SQNR of its weights, each with the config entry that decides it. Drawn from the data
// `explain --json` prints (its size.module_bits, modules, parameters and weight_error), so the
// page and the JSON cannot disagree; the page itself (resources/explain_treemap.html: CSS and
// JS, no network) is embedded at build time.
#pragma once

#include "opscope/coreai/config/document.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace opscope::coreai_explain {

// At most this many rectangles: a model with more modules owning weights (a mixture of
// experts) has its deepest groups drawn as one rectangle each, which keeps a page for any
// model under about a megabyte.
inline constexpr std::size_t kMaxRectangles = 2000;

struct PageSource {
  std::string config; // as the user named it
  std::string model;  // what the model argument named
  std::string mode;   // "graph" or "eager"
  std::string root;   // the root module's type, for its label
  config::Compressor compressor = config::Compressor::Quantizer;
};

// The page's data: {config, model, compressor, mode, bits_per_weight, bits, weights,
// weight_error: "measured" | why not | null (not a Quantizer), entries: [{text, line}],
// modules: [{name, type, weights, before, after (bits), entry, inherited, fp, sqnr, tensors}
// | {name, modules, weights, before, after, entries: [[entry, modules]], sqnr, worst}],
// module_count, max_rectangles, aggregated}. sqnr: the lowest of the module's measured
// weights (null: none quantized, no error; absent: not measured). Throws std::runtime_error
// when `explain` has no projected size (the pruner), which the areas need.
nlohmann::ordered_json treemap_data(const nlohmann::json& explain, const PageSource& source,
                                    std::size_t max_rectangles = kMaxRectangles);

// The self-contained page showing `data`.
std::string treemap_page(const nlohmann::ordered_json& data);

} // namespace opscope::coreai_explain
