// The resolution (core/dialects/coreai/resolve) the features read: the model's shared one when the host keeps
// it, else computed for the call; null when opscope does not resolve this config
// (resolve::resolves) or there is no model.
#pragma once

#include "opscope/features/model.h"
#include "opscope/resolve/eager_weights.h"

#include <memory>
#include <string>

namespace opscope::features::detail {

// How hover and diagnostics name what the resolution's compressor does to the ops it
// configures, in the index's mode.
struct ResolutionWords {
  std::string mode;          // "graph mode", "eager mode"
  std::string configures;    // "the Quantizer annotates", "the KMeansPalettizer palettizes"
  std::string configured_by; // "annotated by the Quantizer", "configured by the ..."
  std::string compresses;    // "the Quantizer compresses", "the MagnitudePruner prunes"
  std::string registered;    // " (linear, conv, ...)": the ops it registers, when few; or ""
};
ResolutionWords resolution_words(const index::Index& index, index::Compressor compressor);

// How hover and diagnostics name a deciding entry: "`lm_head` (line 7)", or coreai-opt's
// default global config.
std::string entry_name(const config::ConfigDocument& document, const resolve::Decider& who);

// `object`: which config object of the document (a Python file may build several, each
// resolved on its own); the host shares the first one's, the others are computed for the call.
std::shared_ptr<const resolve::Resolution> resolution_of(const config::ConfigDocument& document,
                                                         const Model* model, int object = 0);
// For requests on the typing path (hover): the shared resolution only if it is computed
// already (the background check computes it), else null; computed here only without a host.
std::shared_ptr<const resolve::Resolution>
resolution_if_ready(const config::ConfigDocument& document, const Model* model, int object = 0);

// Each parameter's spec when coreai-opt applies the config in eager mode
// (resolve::resolves_eager_weights), on the same terms as resolution_if_ready: the host's
// if computed already, else null; computed here only without a host.
std::shared_ptr<const resolve::EagerWeights>
eager_weights_if_ready(const config::ConfigDocument& document, const Model* model);

} // namespace opscope::features::detail
