#include "options.h"

#include <charconv>

namespace opscope::lsp {
namespace {
constexpr std::size_t kMaxSocketPath = 107; // sockaddr_un::sun_path, less its terminator
} // namespace

const char* const kLspUsage =
    "usage: opscope lsp [--port N [--token-file PATH] | --socket PATH]\n"
    "                   [--log-level error|warning|info|debug]\n"
    "  Runs the language server on stdin/stdout (what editors use), or serves one client:\n"
    "  --port N           on 127.0.0.1:N. Other users can reach that port, so the client must\n"
    "                     first send a secret token and a newline; the server writes the token\n"
    "                     to an owner-only file (mode 0600) and prints its path on stderr.\n"
    "                     A connection with a wrong or no token is closed and logged.\n"
    "  --token-file PATH  where --port writes the token (default\n"
    "                     $XDG_RUNTIME_DIR/opscope/lsp-N.token, else\n"
    "                     ~/.cache/opscope/run/lsp-N.token)\n"
    "  --socket PATH      on a Unix-domain socket created owner-only (mode 0600); only the\n"
    "                     server's own user may connect, no token needed\n";

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
    } else if (arg.rfind("--token-file", 0) == 0) {
      auto text = value("--token-file");
      if (!text || text->empty())
        return "opscope lsp: --token-file needs a path";
      options.token_file = *text;
    } else if (arg.rfind("--socket", 0) == 0) {
      auto text = value("--socket");
      if (!text || text->empty() || text->size() > kMaxSocketPath)
        return "opscope lsp: --socket needs a path of at most " + std::to_string(kMaxSocketPath) +
               " bytes (a limit of Unix-domain sockets)";
      options.socket_path = *text;
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
  if (options.port && options.socket_path)
    return std::string("opscope lsp: give --port or --socket, not both\n") + kLspUsage;
  if (options.token_file && !options.port)
    return std::string("opscope lsp: --token-file goes with --port\n") + kLspUsage;
  return options;
}

} // namespace opscope::lsp
