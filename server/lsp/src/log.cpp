#include "log.h"

#include <cstdio>

namespace opscope::lsp {

std::optional<LogLevel> parse_log_level(std::string_view text) {
  if (text == "error")
    return LogLevel::Error;
  if (text == "warning" || text == "warn")
    return LogLevel::Warning;
  if (text == "info")
    return LogLevel::Info;
  if (text == "debug" || text == "verbose")
    return LogLevel::Debug;
  return std::nullopt;
}

void Logger::log(LogLevel level, const std::string& message) {
  if (!enabled(level))
    return;
  static constexpr const char* kNames[] = {"", "E", "W", "I", "D"};
  std::fprintf(stderr, "%s opscope-lsp: %s\n", kNames[static_cast<int>(level)], message.c_str());
  std::fflush(stderr);
  if (client_)
    client_(level, message);
}

} // namespace opscope::lsp
