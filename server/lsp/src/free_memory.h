// Gives the memory the allocator keeps after large frees back to the system. glibc keeps the
// pages a closed config's parse and compiled patterns freed as its own heap: a server that had
// opened and closed twelve 20,000-key configs stayed at 428 MB resident without this. Used on
// the background thread only, after what was freed, never on the io thread: on a heap of the
// size a 50,000-key config makes (~400,000 blocks, half of them free) one malloc_trim took
// ~40 ms, which a completion arriving meanwhile would wait for (the io thread trimmed every
// 2 s until issue 23).
#pragma once

#include <chrono>

namespace opscope::lsp {

class MemoryReturn {
public:
  // At once: after a large free (a closed config's parse and patterns, released models).
  void now();
  // Once kInterval has passed since the last return: while a config is edited, each check
  // frees the previous parse and resolution, which would otherwise stay with the allocator.
  void if_due();

  static constexpr std::chrono::seconds kInterval{2};

private:
  std::chrono::steady_clock::time_point last_{};
};

} // namespace opscope::lsp
