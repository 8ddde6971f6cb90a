// The resolution (core/resolve) the features read: the model's shared one when the host keeps
// it, else computed for the call; null when coreai-opt resolves this config otherwise (eager
// mode, another compressor) or there is no model.
#pragma once

#include "opscope/features/model.h"
#include "opscope/resolve/eager_weights.h"

#include <memory>

namespace opscope::features::detail {

std::shared_ptr<const resolve::Resolution> resolution_of(const config::ConfigDocument& document,
                                                         const Model* model);
// For requests on the typing path (hover): the shared resolution only if it is computed
// already (the background check computes it), else null; computed here only without a host.
std::shared_ptr<const resolve::Resolution>
resolution_if_ready(const config::ConfigDocument& document, const Model* model);

// Each parameter's spec when coreai-opt applies the config in eager mode
// (resolve::resolves_eager_weights), on the same terms as resolution_if_ready: the host's
// if computed already, else null; computed here only without a host.
std::shared_ptr<const resolve::EagerWeights>
eager_weights_if_ready(const config::ConfigDocument& document, const Model* model);

} // namespace opscope::features::detail
