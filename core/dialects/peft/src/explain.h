// `opscope explain` of a PEFT config: every module the adapter wraps, the entry that targets
// it, its rank and alpha, and the trainable parameter count print_trainable_parameters() prints.
#pragma once

#include "opscope/dialects/peft/config.h"
#include "opscope/index/index.h"

#include <ostream>
#include <string>
#include <vector>

namespace opscope::dialects::peft {

// Writes the explanation to `out` (JSON with `json`); returns the exit code: non-zero when
// get_peft_model would raise on this model (the reason on `err`, as for coreai-opt's prepare()).
int explain(const std::string& config_path, const std::vector<PeftConfig>& configs,
            const index::Index& model, bool json, std::ostream& out, std::ostream& err);

} // namespace opscope::dialects::peft
