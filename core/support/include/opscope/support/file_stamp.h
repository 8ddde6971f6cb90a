// What tells a file changed without reading it.
#pragma once

#include <cstdint>
#include <string>

namespace opscope::support {

// The inode catches a replace-by-rename that keeps size and time; timestamps are coarse, so
// two writes in one tick can still look alike (FileCache re-reads recently modified files).
struct FileStamp {
  std::int64_t mtime_ns = -1; // -1: missing
  std::int64_t size = -1;
  std::uint64_t inode = 0;
  bool operator==(const FileStamp&) const = default;
};
FileStamp stamp_of(const std::string& path);

// Whether a file with this stamp was last modified long enough ago that a second write
// could not leave the stamp unchanged ("racy git": mtime granularity).
bool settled(const FileStamp& stamp);

} // namespace opscope::support
