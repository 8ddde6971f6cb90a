// The host's side of a dialect's weight measurements (dialects/workers.h): the LibTorch worker
// `opscope-weights` started in its own process, and whether a model holds real weights to read
// (a weightless archive, opscope export's default, an index file or a Python target has none).
// The one place the worker is started (`explain`, the editor, `propose`).
#pragma once

#include "opscope/dialects/workers.h"

namespace opscope::model {

// The worker next to opscope (or OPSCOPE_WEIGHTS), run once per request.
const dialects::WeightsWorker& weights_worker();

} // namespace opscope::model
