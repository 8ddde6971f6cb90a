// One status line on stderr for long work (`opscope export`, a first `opscope index`): the
// phase and the time since it began, redrawn in place on a terminal. Quiet (does nothing)
// when stderr is not a terminal, in CI ($CI set), on a dumb terminal, or with --quiet: there
// the model layer's plain progress lines (or nothing) are the record.
#pragma once

#include "opscope/model/model_source.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace opscope::cli {

class ProgressLine {
public:
  // Active only on an interactive terminal and when `quiet` is false.
  explicit ProgressLine(bool quiet);
  ~ProgressLine(); // erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool active() const { return active_; }
  // Starts a phase: "exporting model.py:build with python3 ..." (its clock restarts).
  void phase(const std::string& text);
  // Routes the model layer's phases here when active (else leaves them on stderr).
  void attach(model::Settings& settings);
  // Erases the line and returns the seconds since the first phase.
  double finish();

private:
  void draw_locked();
  void tick();

  bool active_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool drawn_ = false;
  std::string phase_;
  std::chrono::steady_clock::time_point phase_start_;
  std::chrono::steady_clock::time_point start_;
  std::thread ticker_;
};

} // namespace opscope::cli
