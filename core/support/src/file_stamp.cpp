#include "opscope/support/file_stamp.h"

#include <chrono>
#include <sys/stat.h>

namespace opscope::support {

FileStamp stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return {};
  return {static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<std::int64_t>(st.st_size), static_cast<std::uint64_t>(st.st_ino)};
}

bool settled(const FileStamp& stamp) {
  auto modified = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::nanoseconds(stamp.mtime_ns)));
  return std::chrono::system_clock::now() - modified > std::chrono::seconds(2);
}

} // namespace opscope::support
