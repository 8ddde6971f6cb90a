// `opscope explain CONFIG [--model M] [--json]`: what the config does as coreai-opt resolves
// it (the entry deciding each op and module, the overridden and no-effect entries, the
// projected size). The model is found as `opscope check` finds it: --model, else the
// config's `opscope.yaml`, with the same consent rule for a Python model.
#pragma once

#include <string>
#include <vector>

namespace opscope::check {

int run_explain(const std::vector<std::string>& args);

} // namespace opscope::check
