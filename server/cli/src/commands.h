// The built-in sub-commands (one file each).
#pragma once

#include <string>
#include <vector>

namespace opscope::cli {

int run_summary(const std::vector<std::string>& args);
int run_query(const std::vector<std::string>& args);
int run_inputs(const std::vector<std::string>& args);
int run_index(const std::vector<std::string>& args);
int run_export(const std::vector<std::string>& args);
int run_propose(const std::vector<std::string>& args);

} // namespace opscope::cli
