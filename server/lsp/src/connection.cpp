#include "connection.h"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>

#include <cerrno>
#include <poll.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace opscope::lsp {
namespace asio = boost::asio;
using protocol::Message;

namespace {

// Writes all of `bytes` to stdout: one write() for a whole message as a rule.
void write_stdout(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(STDOUT_FILENO, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd out{STDOUT_FILENO, POLLOUT, 0}; // a non-blocking stdout: wait until it drains
      ::poll(&out, 1, -1);
      continue;
    }
    if (n <= 0)
      return; // the client is gone; the reader sees EOF and ends the session
    done += static_cast<std::size_t>(n);
  }
}

// Reads stdin on the io_context itself when it is a pipe or a socket (what
// editors give a language server): a request then wakes one thread, not a
// reader thread and then the loop, which showed in tail latency on a busy
// machine. It waits for readiness and then reads, so stdin's flags (shared
// with whoever else holds it) are never changed.
class PipeStdioChannel : public ByteChannel {
public:
  explicit PipeStdioChannel(asio::io_context& io) : stdin_(io, ::dup(STDIN_FILENO)) {}

  void start(std::function<void(std::string_view)> on_bytes,
             std::function<void()> on_eof) override {
    on_bytes_ = std::move(on_bytes);
    on_eof_ = std::move(on_eof);
    wait_for_input();
  }

  void write(std::string bytes) override { write_stdout(bytes); }

  void close() override {
    boost::system::error_code ec;
    stdin_.close(ec);
  }

private:
  void wait_for_input() {
    stdin_.async_wait(asio::posix::stream_descriptor::wait_read,
                      [this](boost::system::error_code ec) {
                        if (ec == asio::error::operation_aborted)
                          return;
                        ssize_t n = ec ? 0 : read_available();
                        if (n <= 0)
                          return on_eof_();
                        on_bytes_(std::string_view(buffer_.data(), static_cast<std::size_t>(n)));
                        wait_for_input();
                      });
  }

  ssize_t read_available() {
    while (true) {
      ssize_t n = ::read(stdin_.native_handle(), buffer_.data(), buffer_.size());
      if (n < 0 && errno == EINTR)
        continue;
      return n;
    }
  }

  asio::posix::stream_descriptor stdin_;
  std::vector<char> buffer_ = std::vector<char>(256 * 1024);
  std::function<void(std::string_view)> on_bytes_;
  std::function<void()> on_eof_;
};

// Any other stdin (a file, a terminal): a reader thread does blocking reads
// (epoll accepts neither) and posts bytes to the loop.
class ThreadStdioChannel : public ByteChannel {
public:
  explicit ThreadStdioChannel(asio::io_context& io) : io_(io) {}
  ~ThreadStdioChannel() override {
    // The reader may be blocked in read(); it only touches the io_context,
    // which outlives it, so it is left to end with the process.
    if (reader_.joinable())
      reader_.detach();
  }

  void start(std::function<void(std::string_view)> on_bytes,
             std::function<void()> on_eof) override {
    auto work = asio::make_work_guard(io_);
    reader_ = std::thread([this, on_bytes, on_eof, work]() mutable {
      std::vector<char> buffer(256 * 1024);
      while (true) {
        ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0)
          break;
        asio::post(io_,
                   [on_bytes, bytes = std::string(buffer.data(), static_cast<std::size_t>(n))] {
                     on_bytes(bytes);
                   });
      }
      asio::post(io_, on_eof);
      work.reset();
    });
  }

  void write(std::string bytes) override { write_stdout(bytes); }

  void close() override {}

private:
  asio::io_context& io_;
  std::thread reader_;
};

bool stdin_is_pipe_or_socket() {
  struct stat st {};
  return ::fstat(STDIN_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

} // namespace

std::unique_ptr<ByteChannel> make_stdio_channel(asio::io_context& io) {
  if (stdin_is_pipe_or_socket())
    return std::make_unique<PipeStdioChannel>(io);
  return std::make_unique<ThreadStdioChannel>(io);
}

Connection::Connection(asio::io_context& io, std::unique_ptr<ByteChannel> channel, Logger& log)
    : io_(io), channel_(std::move(channel)), log_(log), stall_timer_(io) {}

void Connection::start(MessageHandler& handler) {
  handler_ = &handler;
  channel_->start([this](std::string_view bytes) { on_bytes(bytes); },
                  [this] {
                    stall_timer_.cancel();
                    handler_->on_disconnect();
                  });
}

void Connection::on_bytes(std::string_view bytes) {
  decoder_.feed(bytes);
  drain();
  arm_stall_timer();
}

// A partial message that stops growing may carry a too large Content-Length.
void Connection::arm_stall_timer() {
  stall_timer_.cancel();
  if (!decoder_.has_partial())
    return;
  stall_timer_.expires_after(std::chrono::milliseconds(500));
  stall_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec)
      return;
    decoder_.flush_stalled();
    drain();
  });
}

void Connection::drain() {
  std::vector<Message> batch;
  while (auto event = decoder_.next()) {
    if (auto* error = std::get_if<protocol::FramingError>(&*event)) {
      log_.warning("unreadable message: " + error->message);
      reply({}, protocol::RpcError{protocol::ErrorCode::ParseError, error->message});
      continue;
    }
    Message message = protocol::parse_message(std::get<protocol::Frame>(*event).body);
    if (auto* response = std::get_if<protocol::Response>(&message)) {
      auto* id = std::get_if<std::int64_t>(&response->id);
      auto it = id ? pending_calls_.find(*id) : pending_calls_.end();
      if (it == pending_calls_.end()) {
        log_.debug("response to an unknown request " + protocol::to_string(response->id));
        continue;
      }
      ReplyCallback callback = std::move(it->second);
      pending_calls_.erase(it);
      callback(*response);
      continue;
    }
    batch.push_back(std::move(message));
  }
  if (!batch.empty())
    handler_->on_messages(std::move(batch));
}

void Connection::send(const Json& message) {
  channel_->write(protocol::frame_message(protocol::dump_message(message)));
}

void Connection::notify(std::string_view method, Json params) {
  send(protocol::make_notification(method, std::move(params)));
}

void Connection::call(std::string_view method, Json params, ReplyCallback on_reply) {
  std::int64_t id = next_call_id_++;
  // A client that never answers must not make the table grow without end.
  if (pending_calls_.size() >= kMaxPendingCalls) {
    log_.warning("the client left " + std::to_string(pending_calls_.size()) +
                 " requests unanswered; forgetting request " +
                 std::to_string(pending_calls_.begin()->first));
    pending_calls_.erase(pending_calls_.begin());
  }
  pending_calls_[id] = std::move(on_reply);
  send(protocol::make_request(id, method, std::move(params)));
}

void Connection::reply(const protocol::RequestId& id, protocol::Outcome outcome) {
  if (auto* result = std::get_if<Json>(&outcome))
    send(protocol::make_result(id, std::move(*result)));
  else if (auto* text = std::get_if<protocol::JsonText>(&outcome))
    channel_->write(protocol::frame_message(protocol::dump_result(id, text->text)));
  else
    send(protocol::make_error(id, std::get<protocol::RpcError>(outcome)));
}

} // namespace opscope::lsp
