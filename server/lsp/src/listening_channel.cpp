#include "listening_channel.h"

#include "access_token.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <list>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opscope::lsp {
namespace asio = boost::asio;
namespace {

// At most this many connections may be sending their token at once; a new
// one closes the oldest, so idle connections cannot use up descriptors.
constexpr std::size_t kMaxPendingClients = 8;
constexpr std::size_t kMaxTokenLine = 256;

template <class Protocol> std::string describe(const typename Protocol::endpoint& endpoint) {
  if constexpr (std::is_same_v<Protocol, asio::ip::tcp>)
    return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  else
    return endpoint.path();
}

// How a listener decides whom to serve: TCP by token, Unix sockets by uid.
struct Admission {
  std::optional<std::string> token; // required first line, when set
  bool same_user_only = false;      // checked with SO_PEERCRED
};

template <class Protocol> class ListeningChannel : public ByteChannel {
  using Socket = typename Protocol::socket;

  struct Pending {
    explicit Pending(Socket s) : socket(std::move(s)), deadline(socket.get_executor()) {}
    Socket socket;
    asio::steady_timer deadline;
    std::string received;
    std::array<char, 512> buffer{};
  };

public:
  ListeningChannel(asio::io_context& io, typename Protocol::endpoint endpoint, Admission admission,
                   Logger& log)
      : io_(io), acceptor_(io), socket_(io), endpoint_(std::move(endpoint)),
        admission_(std::move(admission)), log_(log) {}

  ~ListeningChannel() override { close(); }

  void start(std::function<void(std::string_view)> on_bytes,
             std::function<void()> on_eof) override {
    on_bytes_ = std::move(on_bytes);
    on_eof_ = std::move(on_eof);
    if (auto problem = listen()) {
      log_.error("cannot listen on " + describe<Protocol>(endpoint_) + ": " + *problem);
      asio::post(io_, on_eof_);
      return;
    }
    log_.info("listening on " + describe<Protocol>(endpoint_));
    accept_next();
  }

  void write(std::string bytes) override {
    boost::system::error_code ec;
    asio::write(socket_, asio::buffer(bytes), ec);
  }

  void close() override {
    boost::system::error_code ec;
    acceptor_.close(ec);
    remove_own_socket();
    for (auto& pending : pending_)
      pending->socket.close(ec);
    socket_.close(ec);
  }

private:
  std::optional<std::string> listen() {
    boost::system::error_code ec;
    acceptor_.open(endpoint_.protocol(), ec);
    if constexpr (std::is_same_v<Protocol, asio::ip::tcp>) {
      if (!ec)
        acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
      if (!ec)
        acceptor_.bind(endpoint_, ec);
    } else {
      std::filesystem::path folder = std::filesystem::path(endpoint_.path()).parent_path();
      if (!folder.empty())
        if (auto problem = ensure_private_dir(folder))
          return problem;
      if (auto problem = remove_stale_socket())
        return problem;
      // Created owner-only from the start: no moment where others may connect.
      mode_t old_mask = ::umask(0177);
      if (!ec)
        acceptor_.bind(endpoint_, ec);
      ::umask(old_mask);
      socket_file_created_ = !ec;
      if (!ec && ::chmod(endpoint_.path().c_str(), 0600) != 0)
        return std::string("cannot make the socket owner-only");
    }
    if (!ec)
      acceptor_.listen(static_cast<int>(kMaxPendingClients), ec);
    if (ec)
      return ec.message() + "; choose another " +
             (std::is_same_v<Protocol, asio::ip::tcp> ? "--port" : "--socket");
    return std::nullopt;
  }

  // Only a socket file this listener made is removed: never a path it refused.
  void remove_own_socket() {
    if constexpr (!std::is_same_v<Protocol, asio::ip::tcp>)
      if (socket_file_created_)
        ::unlink(endpoint_.path().c_str());
    socket_file_created_ = false;
  }

  // A socket left by an earlier server of ours is replaced; anything else is refused.
  std::optional<std::string> remove_stale_socket() {
    struct stat st {};
    if (::lstat(endpoint_.path().c_str(), &st) != 0)
      return std::nullopt;
    if (!S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid())
      return std::string("the path exists and is not a socket of this user");
    ::unlink(endpoint_.path().c_str());
    return std::nullopt;
  }

  void accept_next() {
    acceptor_.async_accept([this](boost::system::error_code ec, Socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open())
        return;
      if (ec) {
        log_.warning("accepting a connection failed: " + ec.message());
      } else {
        admit(std::move(socket));
      }
      if (acceptor_.is_open())
        accept_next();
    });
  }

  void admit(Socket socket) {
    boost::system::error_code ec;
    std::string peer = describe<Protocol>(socket.remote_endpoint(ec));
    if (admission_.same_user_only) {
      ucred cred{};
      socklen_t size = sizeof cred;
      if (::getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0 ||
          cred.uid != ::geteuid()) {
        log_.warning("refused a connection from uid " + std::to_string(cred.uid) + ": only uid " +
                     std::to_string(::geteuid()) + " may connect");
        return;
      }
    }
    if (!admission_.token)
      return serve(std::move(socket), "");
    if (pending_.size() >= kMaxPendingClients) {
      log_.warning("closing a connection that sent no token in time (too many waiting)");
      pending_.front()->socket.close(ec);
      pending_.pop_front();
    }
    auto pending = std::make_shared<Pending>(std::move(socket));
    pending_.push_back(pending);
    pending->deadline.expires_after(kTokenDeadline);
    pending->deadline.async_wait([this, pending, peer](boost::system::error_code timer_error) {
      if (!timer_error)
        reject(pending, peer, "no token within " + std::to_string(kTokenDeadline.count()) + " s");
    });
    read_token(pending, peer);
  }

  void read_token(std::shared_ptr<Pending> pending, std::string peer) {
    pending->socket.async_read_some(
        asio::buffer(pending->buffer),
        [this, pending, peer](boost::system::error_code ec, std::size_t n) {
          if (ec == asio::error::operation_aborted)
            return;
          if (ec)
            return reject(pending, peer, "it closed before sending a token");
          pending->received.append(pending->buffer.data(), n);
          std::size_t eol = pending->received.find('\n');
          if (eol == std::string::npos) {
            if (pending->received.size() > kMaxTokenLine)
              return reject(pending, peer, "wrong token");
            return read_token(pending, peer);
          }
          std::string_view line(pending->received.data(), eol);
          if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
          if (!tokens_equal(line, *admission_.token))
            return reject(pending, peer, "wrong token");
          std::string rest = pending->received.substr(eol + 1);
          forget(pending);
          serve(std::move(pending->socket), std::move(rest));
        });
  }

  void reject(const std::shared_ptr<Pending>& pending, const std::string& peer,
              const std::string& why) {
    log_.warning("refused a connection from " + peer + ": " + why +
                 " (the client must first send the token from the token file)");
    boost::system::error_code ec;
    pending->socket.close(ec);
    forget(pending);
  }

  void forget(const std::shared_ptr<Pending>& pending) {
    pending->deadline.cancel();
    pending_.remove(pending);
  }

  // The one client: stop listening, drop the others, read its messages.
  void serve(Socket socket, std::string first_bytes) {
    boost::system::error_code ec;
    acceptor_.close(ec);
    remove_own_socket();
    for (auto& pending : pending_) {
      pending->deadline.cancel();
      pending->socket.close(ec);
    }
    pending_.clear();
    socket_ = std::move(socket);
    log_.info("client connected");
    if (!first_bytes.empty())
      on_bytes_(first_bytes);
    read_more();
  }

  void read_more() {
    socket_.async_read_some(asio::buffer(buffer_),
                            [this](boost::system::error_code ec, std::size_t n) {
                              if (ec)
                                return on_eof_();
                              on_bytes_(std::string_view(buffer_.data(), n));
                              read_more();
                            });
  }

  asio::io_context& io_;
  typename Protocol::acceptor acceptor_;
  Socket socket_;
  typename Protocol::endpoint endpoint_;
  Admission admission_;
  Logger& log_;
  std::list<std::shared_ptr<Pending>> pending_;
  bool socket_file_created_ = false;
  std::array<char, 256 * 1024> buffer_{};
  std::function<void(std::string_view)> on_bytes_;
  std::function<void()> on_eof_;
};

} // namespace

std::unique_ptr<ByteChannel> make_tcp_channel(asio::io_context& io, int port, std::string token,
                                              Logger& log) {
  asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"),
                                   static_cast<unsigned short>(port));
  return std::make_unique<ListeningChannel<asio::ip::tcp>>(io, endpoint,
                                                           Admission{std::move(token), false}, log);
}

std::unique_ptr<ByteChannel> make_unix_socket_channel(asio::io_context& io, std::string path,
                                                      Logger& log) {
  asio::local::stream_protocol::endpoint endpoint(path);
  return std::make_unique<ListeningChannel<asio::local::stream_protocol>>(
      io, endpoint, Admission{std::nullopt, true}, log);
}

} // namespace opscope::lsp
