#include "opscope/support/cache_dir.h"

#include <cstdlib>

namespace opscope::support {

std::string cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/opscope";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/opscope";
}

} // namespace opscope::support
