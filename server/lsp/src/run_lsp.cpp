#include "opscope/lsp/run_lsp.h"

#include "access_token.h"
#include "connection.h"
#include "listening_channel.h"
#include "lsp_server.h"
#include "options.h"

#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace opscope::lsp {

int run_lsp(const std::vector<std::string>& args) {
  auto parsed = parse_lsp_options(args);
  if (auto* message = std::get_if<std::string>(&parsed)) {
    bool help = message->rfind("usage:", 0) == 0;
    std::fputs(message->c_str(), help ? stdout : stderr);
    return help ? 0 : 2;
  }
  const LspOptions& options = std::get<LspOptions>(parsed);
  // A client that goes away must not kill us mid-write; the read side notices.
  std::signal(SIGPIPE, SIG_IGN);

  // Leaked on purpose: the stdin reader thread may still be blocked in read()
  // when we return, and it posts to this io_context.
  auto& io = *new boost::asio::io_context();
  Logger log(options.log_level);
  std::unique_ptr<ByteChannel> channel;
  std::string token_path;
  if (options.port) {
    std::string token = make_access_token();
    token_path = options.token_file.value_or(default_token_path(*options.port));
    if (auto problem = write_token_file(token_path, token)) {
      std::fprintf(stderr, "opscope lsp: %s\n", problem->c_str());
      return 2;
    }
    // Printed whatever the log level: the client needs it to connect.
    std::fprintf(stderr, "opscope-lsp: token file: %s\n", token_path.c_str());
    std::fflush(stderr);
    channel = make_tcp_channel(io, *options.port, std::move(token), log);
  } else if (options.socket_path) {
    channel = make_unix_socket_channel(io, *options.socket_path, log);
  } else {
    channel = make_stdio_channel(io);
  }
  Connection connection(io, std::move(channel), log);
  LspServer server(io, connection, log, WorkerSettings::from_environment());
  server.on_finished = [&] { io.stop(); };
  connection.start(server);
  io.run();
  connection.close();
  if (!token_path.empty())
    ::unlink(token_path.c_str()); // a token of a server that is gone is no use to anyone
  return server.exit_code();
}

} // namespace opscope::lsp
