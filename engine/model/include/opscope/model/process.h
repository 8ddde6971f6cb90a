// Running a child process (the inspection worker, the Python export helper) to the end.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace opscope::model {

struct ProcessResult {
  bool started = false; // false: the program could not be run at all (see start_error)
  std::string start_error;
  int exit_code = -1;     // when it exited
  int signal = 0;         // when a signal killed it (it crashed)
  bool timed_out = false; // it ran past the timeout and was killed (signal is SIGKILL)
  std::string stdout_text;
  std::string stderr_text;
  bool ok() const { return started && signal == 0 && exit_code == 0; }
};

// Runs argv[0] (searched on PATH when it has no slash) with stdin from /dev/null and
// waits; stdout and stderr are captured. With a timeout, the process (and the processes it
// started, in its own process group) is killed once it runs longer.
ProcessResult run_process(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout = std::chrono::milliseconds::zero());

// "SIGSEGV (segmentation fault)".
std::string describe_signal(int signal);

// The last non-empty line of a process's stderr (its one-line error message).
std::string last_line(const std::string& text);

} // namespace opscope::model
