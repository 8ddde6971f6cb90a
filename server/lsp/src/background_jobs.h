// Slow work for the session (a full check of a 50,000-key config takes ~0.4 s) runs on one
// background thread, so requests are answered while it runs instead of waiting behind it.
// Jobs are keyed (one per document): a newer job for a key replaces a queued one, and the
// result of a job that was superseded or cancelled meanwhile is dropped, never delivered.
// Knows nothing of LSP or models: the work and its delivery are the caller's closures.
#pragma once

#include <boost/asio/io_context.hpp>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace opscope::lsp {

class BackgroundJobs {
public:
  // Runs on the io thread with the work's result, if the job is still the latest for its key.
  using Delivery = std::function<void()>;
  // Runs on the background thread: it may only read what it owns or shares immutably.
  using Work = std::function<Delivery()>;
  // Called on the io thread when a job's work threw.
  using ErrorHandler = std::function<void(const std::string& key, const std::string& what)>;
  // Called on the background thread each time it runs out of jobs (housekeeping that should not
  // delay a job or the io thread).
  using IdleWork = std::function<void()>;

  BackgroundJobs(boost::asio::io_context& io, ErrorHandler on_error, IdleWork on_idle = {});
  ~BackgroundJobs(); // waits for the running job (its result is dropped)
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;

  // Call on the io thread.
  void submit(const std::string& key, Work work);
  void cancel(const std::string& key);
  // Jobs queued or running. When 0, every finished job's work (and what it captured) was
  // released before this call: what it shared may be written again.
  std::size_t pending() const;

private:
  struct Job {
    std::string key;
    std::uint64_t generation = 0;
    Work work;
  };
  // Shared with the deliveries posted to the io thread, which may run after this object
  // is gone (closed) and then do nothing. Touched only on the io thread.
  struct Latest {
    bool closed = false;
    std::map<std::string, std::uint64_t> generation; // per key; absent: cancelled
  };

  void run();

  boost::asio::io_context& io_;
  ErrorHandler on_error_;
  IdleWork on_idle_;
  std::shared_ptr<Latest> latest_ = std::make_shared<Latest>();
  std::uint64_t next_generation_ = 1;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::list<Job> queue_; // oldest first; at most one per key
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::thread thread_; // last: started once the members above exist
};

} // namespace opscope::lsp
