// `opscope lsp --port` and `--socket`: a listener that serves one client, and
// only one the server's own user started. Over TCP (which every local user
// can reach) the client must first send a token line; over a Unix-domain
// socket the socket's mode 0600 and the peer's uid decide. A connection that
// fails is closed and logged, and the listener waits on, so one bad or idle
// connection cannot keep the right client out.
#pragma once

#include "connection.h"

#include <chrono>
#include <memory>
#include <string>

namespace opscope::lsp {

// How long a connecting client has to send its token.
inline constexpr std::chrono::seconds kTokenDeadline{10};

// Listens on 127.0.0.1:port; the first client to send `token` + "\n" is served.
std::unique_ptr<ByteChannel> make_tcp_channel(boost::asio::io_context& io, int port,
                                              std::string token, Logger& log);
// Listens on a Unix-domain socket at `path` (created mode 0600, removed at close);
// the first client running as this process's user is served.
std::unique_ptr<ByteChannel> make_unix_socket_channel(boost::asio::io_context& io, std::string path,
                                                      Logger& log);

} // namespace opscope::lsp
