// `opscope explain` of a PEFT config: every module the adapter wraps, the entry that targets
// it, its rank and alpha, and the trainable parameter count print_trainable_parameters() prints.
#pragma once

#include "opscope/features/dialect_peft.h"
#include "opscope/index/index.h"

#include <string>

namespace opscope::check {

// Writes the explanation to stdout (JSON with `json`); returns the exit code: non-zero when
// get_peft_model would raise on this model (the reason on stderr, as for coreai-opt's prepare()).
int explain_peft(const std::string& config_path, const features::PeftConfigs& configs,
                 const index::Index& model, bool json);

} // namespace opscope::check
