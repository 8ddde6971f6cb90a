// A JSON-RPC connection over a byte channel (stdio or a socket, both on
// Asio): frames and parses incoming bytes, replies to what cannot be parsed,
// routes responses to our calls, and writes outgoing messages.
#pragma once

#include "log.h"
#include "transport.h"

#include "opscope/protocol/framing.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>

namespace opscope::lsp {

// Where bytes come from and go to.
class ByteChannel {
public:
  virtual ~ByteChannel() = default;
  // Starts reading; callbacks run on the io_context.
  virtual void start(std::function<void(std::string_view)> on_bytes,
                     std::function<void()> on_eof) = 0;
  virtual void write(std::string bytes) = 0;
  virtual void close() = 0;
};

// stdin/stdout: read on the loop when stdin is a pipe or socket, else by a
// reader thread (a file or a tty).
std::unique_ptr<ByteChannel> make_stdio_channel(boost::asio::io_context& io);
// (--port and --socket listeners: listening_channel.h.)

class Connection : public Transport {
public:
  Connection(boost::asio::io_context& io, std::unique_ptr<ByteChannel> channel, Logger& log);
  void start(MessageHandler& handler);
  void close() { channel_->close(); }

  void notify(std::string_view method, Json params) override;
  void call(std::string_view method, Json params, ReplyCallback on_reply) override;
  void reply(const protocol::RequestId& id, protocol::Outcome outcome) override;

private:
  void on_bytes(std::string_view bytes);
  void drain();
  void send(const Json& message);
  void arm_stall_timer();

  boost::asio::io_context& io_;
  std::unique_ptr<ByteChannel> channel_;
  Logger& log_;
  MessageHandler* handler_ = nullptr;
  protocol::FrameDecoder decoder_;
  boost::asio::steady_timer stall_timer_;
  static constexpr std::size_t kMaxPendingCalls = 256;
  std::int64_t next_call_id_ = 1;
  std::map<std::int64_t, ReplyCallback> pending_calls_;
};

} // namespace opscope::lsp
