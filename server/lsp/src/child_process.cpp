#include "child_process.h"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

namespace opscope::lsp {
namespace asio = boost::asio;

std::string ChildResult::describe(const std::string& what) const {
  // The worker's last non-empty line is its one clear message.
  std::string last;
  std::size_t end = output.size();
  while (end > 0) {
    std::size_t start = output.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    std::string line = output.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    if (!line.empty()) {
      last = line;
      break;
    }
    if (start == 0)
      break;
    end = start - 1;
  }
  if (failed_to_start)
    return what + " could not start: " + (last.empty() ? "unknown error" : last);
  if (timed_out)
    return what + " did not finish in time and was stopped" +
           (last.empty() ? std::string() : " (last output: " + last + ")");
  if (signal != 0)
    return what + " crashed (" + strsignal(signal) + ")" +
           (last.empty() ? std::string() : ": " + last);
  if (exit_code != 0) {
    if (last.empty())
      return what + " failed with exit code " + std::to_string(exit_code);
    // The child is `opscope` itself: its message without the program name, as `check`, which
    // loads in-process, says it.
    constexpr std::string_view kProgram = "opscope: ";
    return last.rfind(kProgram, 0) == 0 ? last.substr(kProgram.size()) : last;
  }
  return what + " succeeded";
}

struct ChildProcess::Impl {
  explicit Impl(asio::io_context& io) : pipe(io), timeout(io), reaper(io) {}
  asio::posix::stream_descriptor pipe;
  asio::steady_timer timeout;
  asio::steady_timer reaper;
  pid_t pid = -1;
  std::array<char, 8192> buffer{};
  ChildResult result;
  Done done;
  bool finished = false;
};

ChildProcess::ChildProcess(asio::io_context& io) : impl_(std::make_unique<Impl>(io)) {}

ChildProcess::~ChildProcess() {
  if (impl_ && impl_->pid > 0 && !impl_->finished) {
    ::kill(-impl_->pid, SIGKILL);
    ::waitpid(impl_->pid, nullptr, 0);
  }
}

void ChildProcess::kill() {
  if (impl_->pid > 0 && !impl_->finished)
    ::kill(-impl_->pid, SIGKILL);
}

std::shared_ptr<ChildProcess> ChildProcess::start(asio::io_context& io,
                                                  const std::vector<std::string>& argv,
                                                  const std::string& work_dir,
                                                  std::chrono::milliseconds timeout, Done done) {
  std::shared_ptr<ChildProcess> self(new ChildProcess(io));
  Impl& impl = *self->impl_;
  impl.done = std::move(done);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    impl.result.failed_to_start = true;
    impl.result.output = std::string("pipe: ") + std::strerror(errno);
    impl.finished = true;
    asio::post(io, [self] { self->impl_->done(self->impl_->result); });
    return self;
  }
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    // Child: own process group (so a timeout kills grandchildren too), output
    // into the pipe, no stdin (the LSP stream must never reach user code).
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, STDIN_FILENO);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    if (!work_dir.empty() && ::chdir(work_dir.c_str()) != 0) {
      dprintf(STDERR_FILENO, "cannot enter %s: %s\n", work_dir.c_str(), std::strerror(errno));
      ::_exit(127);
    }
    // A command name (the project's `python: python3`) is found on PATH, as a shell finds it.
    ::execvp(args[0], args.data());
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    impl.result.failed_to_start = true;
    impl.result.output = std::string("fork: ") + std::strerror(errno);
    impl.finished = true;
    asio::post(io, [self] { self->impl_->done(self->impl_->result); });
    return self;
  }
  impl.pid = pid;
  impl.pipe.assign(fds[0]);
  impl.timeout.expires_after(timeout);
  impl.timeout.async_wait([weak = std::weak_ptr<ChildProcess>(self)](boost::system::error_code ec) {
    auto self = weak.lock();
    if (ec || !self || self->impl_->finished)
      return;
    self->impl_->result.timed_out = true;
    ::kill(-self->impl_->pid, SIGKILL);
  });

  // Read output until EOF, then reap. The read loop keeps the object alive.
  auto read = std::make_shared<std::function<void()>>();
  *read = [self, read] {
    Impl& impl = *self->impl_;
    impl.pipe.async_read_some(
        asio::buffer(impl.buffer), [self, read](boost::system::error_code ec, std::size_t n) {
          Impl& impl = *self->impl_;
          if (!ec) {
            impl.result.output.append(impl.buffer.data(), n);
            if (impl.result.output.size() > 64 * 1024)
              impl.result.output.erase(0, impl.result.output.size() - 64 * 1024);
            (*read)();
            return;
          }
          impl.pipe.close();
          // EOF: the child (and anything that inherited the pipe) is done writing.
          auto reap = std::make_shared<std::function<void()>>();
          *reap = [self, reap, read] {
            Impl& impl = *self->impl_;
            int status = 0;
            pid_t got = ::waitpid(impl.pid, &status, WNOHANG);
            if (got == 0) {
              impl.reaper.expires_after(std::chrono::milliseconds(20));
              impl.reaper.async_wait([reap](boost::system::error_code) { (*reap)(); });
              return;
            }
            if (got == impl.pid) {
              if (WIFEXITED(status))
                impl.result.exit_code = WEXITSTATUS(status);
              else if (WIFSIGNALED(status))
                impl.result.signal = WTERMSIG(status);
            }
            impl.finished = true;
            impl.timeout.cancel();
            ::kill(-impl.pid, SIGKILL); // leftovers of its process group
            if (impl.result.exit_code == 127 && impl.result.signal == 0)
              impl.result.failed_to_start = true;
            Done done = std::move(impl.done);
            ChildResult result = impl.result;
            // Break the reference cycles later, not while this closure runs.
            asio::post(impl.reaper.get_executor(), [reap, read] {
              *reap = nullptr;
              *read = nullptr;
            });
            done(result);
          };
          (*reap)();
        });
  };
  (*read)();
  return self;
}

} // namespace opscope::lsp
