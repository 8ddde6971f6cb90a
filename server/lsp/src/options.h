// Command-line options of `opscope lsp`.
#pragma once

#include "log.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace opscope::lsp {

struct LspOptions {
  std::optional<int> port;                // listen on 127.0.0.1:port instead of stdio
  std::optional<std::string> token_file;  // where --port writes its token (else the default)
  std::optional<std::string> socket_path; // listen on this Unix-domain socket instead
  LogLevel log_level = LogLevel::Info;
};

// The options, or a message naming the bad argument and what to do.
std::variant<LspOptions, std::string> parse_lsp_options(const std::vector<std::string>& args);

extern const char* const kLspUsage;

} // namespace opscope::lsp
