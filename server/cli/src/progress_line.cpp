#include "progress_line.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/ioctl.h>
#include <unistd.h>

namespace opscope::cli {
namespace {

bool interactive_stderr() {
  if (!::isatty(STDERR_FILENO))
    return false;
  // GitHub Actions, GitLab, Travis... set CI; a log has no use for carriage returns.
  if (const char* ci = std::getenv("CI"); ci && *ci && std::strcmp(ci, "false") != 0)
    return false;
  const char* term = std::getenv("TERM");
  return !(term && std::strcmp(term, "dumb") == 0);
}

std::size_t terminal_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10)
    return size.ws_col;
  return 80;
}

constexpr auto kRedraw = std::chrono::milliseconds(200);

} // namespace

ProgressLine::ProgressLine(bool quiet) : active_(!quiet && interactive_stderr()) {
  start_ = phase_start_ = std::chrono::steady_clock::now();
  if (active_)
    ticker_ = std::thread([this] { tick(); });
}

ProgressLine::~ProgressLine() {
  finish();
}

void ProgressLine::phase(const std::string& text) {
  if (!active_)
    return;
  std::lock_guard lock(mutex_);
  phase_ = text;
  phase_start_ = std::chrono::steady_clock::now();
  draw_locked();
}

void ProgressLine::attach(model::Settings& settings) {
  if (active_)
    settings.on_progress = [this](const std::string& text) { phase(text); };
}

double ProgressLine::finish() {
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!active_)
    return seconds;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (drawn_)
      std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
  wake_.notify_all();
  if (ticker_.joinable())
    ticker_.join();
  active_ = false;
  return seconds;
}

void ProgressLine::draw_locked() {
  if (phase_.empty() || stopping_)
    return;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - phase_start_).count();
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, " %.1fs", seconds);
  std::string text = "opscope: " + phase_;
  // One line, never wrapped: a wrapped line cannot be redrawn in place.
  std::size_t room = terminal_width() - 1 - std::strlen(elapsed);
  if (text.size() > room) {
    std::size_t cut = room > 3 ? room - 3 : 0;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
      --cut; // not inside a UTF-8 character
    text = text.substr(0, cut) + "...";
  }
  std::fprintf(stderr, "\r\033[K%s%s", text.c_str(), elapsed);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::tick() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kRedraw);
    draw_locked();
  }
}

} // namespace opscope::cli
