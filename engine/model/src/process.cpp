#include "opscope/model/process.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace opscope::model {
namespace {

// A temporary file the child writes one stream into; removed on destruction.
class CaptureFile {
public:
  CaptureFile() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/opscope-capture-XXXXXX";
    fd_ = mkstemp(path_.data());
  }
  ~CaptureFile() {
    if (fd_ >= 0) {
      close(fd_);
      unlink(path_.c_str());
    }
  }
  CaptureFile(const CaptureFile&) = delete;
  CaptureFile& operator=(const CaptureFile&) = delete;
  int fd() const { return fd_; }
  std::string read() const {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }

private:
  std::string path_;
  int fd_ = -1;
};

} // namespace

ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ProcessResult result;
  CaptureFile out, err;
  if (out.fd() < 0 || err.fd() < 0) {
    result.start_error = std::string("cannot create a temporary file: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd(), 2);
  std::vector<char*> args;
  for (const auto& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  // With a timeout the child leads its own process group, so that killing it stops what it
  // started too.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (timeout > std::chrono::milliseconds::zero()) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    result.start_error = std::strerror(rc);
    return result;
  }
  result.started = true;
  int status = 0;
  if (timeout > std::chrono::milliseconds::zero()) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      pid_t done = waitpid(pid, &status, WNOHANG);
      if (done == pid || (done < 0 && errno != EINTR))
        break;
      if (std::chrono::steady_clock::now() >= deadline) {
        result.timed_out = true;
        ::kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      usleep(20'000);
    }
  } else {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  else if (WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  // posix_spawnp reports exec failure of a missing program as exit 127 on glibc.
  result.stdout_text = out.read();
  result.stderr_text = err.read();
  return result;
}

std::string describe_signal(int signal) {
  const char* name = sigabbrev_np(signal);
  const char* what = strsignal(signal);
  std::string text = name ? std::string("SIG") + name : "signal " + std::to_string(signal);
  if (what)
    text += std::string(" (") + what + ")";
  return text;
}

std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      last = line;
  return last;
}

} // namespace opscope::model
