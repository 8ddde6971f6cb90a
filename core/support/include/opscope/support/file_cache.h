// What was made from a file (a parse), kept while the file's stamp stays the same, so that
// a file read on every request is read once per change. Owned by whoever serves the
// requests (one per session), never a process-wide static.
#pragma once

#include "opscope/support/file_stamp.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace opscope::support {

template <class Value> class FileCache {
public:
  // `make(path)` when the file is new, changed, or modified in the last two seconds (a
  // second write within the timestamp's granularity would leave the stamp unchanged);
  // the cached value otherwise. A missing file is never cached. Thread-safe.
  template <class Make> Value get(const std::string& path, Make&& make) {
    FileStamp stamp = stamp_of(path);
    if (stamp.size < 0)
      return make(path);
    const bool keep = settled(stamp);
    std::lock_guard lock(mutex_);
    auto it = entries_.find(path);
    if (keep && it != entries_.end() && it->second.first == stamp)
      return it->second.second;
    Value value = make(path);
    if (keep)
      entries_[path] = {stamp, value};
    return value;
  }

private:
  std::mutex mutex_;
  std::map<std::string, std::pair<FileStamp, Value>> entries_;
};

} // namespace opscope::support
