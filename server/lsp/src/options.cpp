#include "options.h"

#include <charconv>

namespace opscope::lsp {

const char* const kLspUsage =
    "usage: opscope lsp [--port N] [--log-level error|warning|info|debug]\n"
    "  Runs the language server on stdin/stdout, or on 127.0.0.1:N with --port.\n";

std::variant<LspOptions, std::string> parse_lsp_options(const std::vector<std::string>& args) {
  LspOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](const char* name) -> std::optional<std::string> {
      std::string prefix = std::string(name) + "=";
      if (arg.rfind(prefix, 0) == 0)
        return arg.substr(prefix.size());
      if (arg == name && i + 1 < args.size())
        return args[++i];
      return std::nullopt;
    };
    if (arg == "--stdio")
      continue; // the default; accepted because vscode-languageclient passes it
    if (arg.rfind("--port", 0) == 0) {
      auto text = value("--port");
      int port = 0;
      if (!text ||
          std::from_chars(text->data(), text->data() + text->size(), port).ec != std::errc() ||
          port <= 0 || port > 65535)
        return "opscope lsp: --port needs a TCP port number between 1 and 65535";
      options.port = port;
    } else if (arg.rfind("--log-level", 0) == 0) {
      auto text = value("--log-level");
      auto level = text ? parse_log_level(*text) : std::nullopt;
      if (!level)
        return "opscope lsp: --log-level must be one of error, warning, info, debug";
      options.log_level = *level;
    } else if (arg == "-h" || arg == "--help") {
      return std::string(kLspUsage);
    } else {
      return "opscope lsp: unknown argument \"" + arg + "\"\n" + kLspUsage;
    }
  }
  return options;
}

} // namespace opscope::lsp
