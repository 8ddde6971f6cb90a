// What the editor's background work on real weights keeps between edits (measurements.h,
// rewrites.h): results by a text key, the few used last, shared by the threads that compute
// them. Keys start with the weights' stamp, so a file saved again is computed again.
#pragma once

#include "opscope/support/file_stamp.h"

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace opscope::lsp {

// The file at `path` as it is on disk: its path, mtime, size and inode, on one line each.
inline std::string stamp_key(const std::string& path) {
  const support::FileStamp stamp = support::stamp_of(path);
  return path + "\n" + std::to_string(stamp.mtime_ns) + " " + std::to_string(stamp.size) + " " +
         std::to_string(stamp.inode) + "\n";
}

// At most `kept` results, the oldest dropped first. Thread-safe.
template <class T> class KeptResults {
public:
  explicit KeptResults(std::size_t kept) : kept_(kept) {}

  std::shared_ptr<const T> find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = results_.find(key);
    return it == results_.end() ? nullptr : it->second;
  }

  void keep(const std::string& key, std::shared_ptr<const T> result) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!results_.emplace(key, std::move(result)).second)
      return;
    order_.push_back(key);
    if (order_.size() > kept_) {
      results_.erase(order_.front());
      order_.pop_front();
    }
  }

private:
  const std::size_t kept_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const T>> results_;
  std::deque<std::string> order_; // oldest first
};

} // namespace opscope::lsp
