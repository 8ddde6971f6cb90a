// The server's own log: to stderr (which editors show in their output panel)
// and, once a client is connected, as window/logMessage, both filtered by
// --log-level.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace opscope::lsp {

enum class LogLevel { Error = 1, Warning = 2, Info = 3, Debug = 4 };
std::optional<LogLevel> parse_log_level(std::string_view text);

class Logger {
public:
  using Sink = std::function<void(LogLevel, const std::string&)>;
  explicit Logger(LogLevel level) : level_(level) {}

  void set_client_sink(Sink sink) { client_ = std::move(sink); }
  bool enabled(LogLevel level) const { return level <= level_; }
  void log(LogLevel level, const std::string& message);

  void error(const std::string& m) { log(LogLevel::Error, m); }
  void warning(const std::string& m) { log(LogLevel::Warning, m); }
  void info(const std::string& m) { log(LogLevel::Info, m); }
  void debug(const std::string& m) { log(LogLevel::Debug, m); }

private:
  LogLevel level_;
  Sink client_;
};

} // namespace opscope::lsp
