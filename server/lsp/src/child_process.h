// Runs a worker process (fork/exec) without blocking the Asio loop: its
// merged stdout/stderr is read asynchronously, a timeout kills its whole
// process group (the `opscope index` front end starts its own worker), and
// the callback receives how it ended.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opscope::lsp {

struct ChildResult {
  int exit_code = -1; // when it exited
  int signal = 0;     // when a signal killed it
  bool timed_out = false;
  bool failed_to_start = false;
  std::string output; // the last 64 KiB of what it printed

  bool ok() const { return exit_code == 0 && !timed_out && signal == 0; }
  // One line for the user: the child's own last message, or how it died.
  std::string describe(const std::string& what) const;
};

class ChildProcess : public std::enable_shared_from_this<ChildProcess> {
public:
  using Done = std::function<void(const ChildResult&)>;
  // argv[0] is the executable path. `work_dir` may be empty (inherit).
  static std::shared_ptr<ChildProcess> start(boost::asio::io_context& io,
                                             const std::vector<std::string>& argv,
                                             const std::string& work_dir,
                                             std::chrono::milliseconds timeout, Done done);
  // Kills it (the callback still runs, with the signal).
  void kill();
  ~ChildProcess();

private:
  explicit ChildProcess(boost::asio::io_context& io);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace opscope::lsp
