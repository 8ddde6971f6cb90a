#include "opscope/lsp/run_lsp.h"

#include "connection.h"
#include "lsp_server.h"
#include "options.h"

#include <csignal>
#include <cstdio>

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
  std::unique_ptr<ByteChannel> channel =
      options.port ? make_tcp_channel(io, *options.port, log) : make_stdio_channel(io);
  Connection connection(io, std::move(channel), log);
  LspServer server(io, connection, log, WorkerSettings::from_environment());
  server.on_finished = [&] { io.stop(); };
  connection.start(server);
  io.run();
  connection.close();
  return server.exit_code();
}

} // namespace opscope::lsp
