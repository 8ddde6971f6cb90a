// `opscope trust [PATH]`, `opscope trust --list`, `opscope trust --revoke [PATH]`: the user's
// consent to run what a project file names (see store.h). PATH is an opscope.yaml or a folder
// (its nearest opscope.yaml at or above it); the default is the nearest one above the cwd.
#pragma once

#include <string>
#include <vector>

namespace opscope::trust {

int run_trust(const std::vector<std::string>& args);

} // namespace opscope::trust
