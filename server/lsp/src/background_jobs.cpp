#include "background_jobs.h"

#include <boost/asio/post.hpp>

#include <exception>

namespace opscope::lsp {

BackgroundJobs::BackgroundJobs(boost::asio::io_context& io, ErrorHandler on_error, IdleWork on_idle)
    : io_(io), on_error_(std::move(on_error)), on_idle_(std::move(on_idle)),
      thread_([this] { run(); }) {}

BackgroundJobs::~BackgroundJobs() {
  latest_->closed = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

void BackgroundJobs::submit(const std::string& key, Work work) {
  std::uint64_t generation = next_generation_++;
  latest_->generation[key] = generation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    bool replaced = false;
    for (Job& job : queue_)
      if (job.key == key) {
        job.generation = generation;
        job.work = std::move(work);
        replaced = true;
        break;
      }
    if (!replaced)
      queue_.push_back({key, generation, std::move(work)});
  }
  wake_.notify_one();
}

void BackgroundJobs::cancel(const std::string& key) {
  latest_->generation.erase(key);
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.remove_if([&](const Job& job) { return job.key == key; });
}

std::size_t BackgroundJobs::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size() + running_;
}

void BackgroundJobs::run() {
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_)
        return;
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    Delivery delivery;
    std::string error;
    try {
      delivery = job.work();
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = "unknown exception";
    }
    job.work = nullptr; // release what the work shared before the result is delivered
    boost::asio::post(io_, [latest = latest_, on_error = on_error_, key = std::move(job.key),
                            generation = job.generation, delivery = std::move(delivery),
                            error = std::move(error)] {
      if (latest->closed)
        return;
      auto it = latest->generation.find(key);
      if (it == latest->generation.end() || it->second != generation)
        return; // superseded or cancelled while it ran
      latest->generation.erase(it);
      if (!error.empty()) {
        if (on_error)
          on_error(key, error);
      } else if (delivery) {
        delivery();
      }
    });
    bool idle = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
      idle = queue_.empty() && !stopping_;
    }
    if (idle && on_idle_)
      on_idle_();
  }
}

} // namespace opscope::lsp
