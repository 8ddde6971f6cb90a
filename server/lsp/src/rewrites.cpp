#include "rewrites.h"

#include "opscope/model/weights_worker.h"
#include "opscope/support/file_stamp.h"

#include <chrono>

namespace opscope::lsp {
namespace {

// The editor's bound on one worker (the command line waits longer); it also bounds how long
// closing the server waits for a rewriting under way.
constexpr std::chrono::seconds kWorkerTimeout{120};

} // namespace

Rewrites::Rewrites(boost::asio::io_context& io, Logger& log)
    : log_(log), jobs_(io, [this](const std::string& uri, const std::string& what) {
        log_.error("computing the rewrites of " + uri + " failed: " + what);
        if (auto it = documents_.find(uri); it != documents_.end()) {
          it->second.subject.clear(); // tried again after the next edit or load
          it->second.pending = 0;
        }
      }) {}

void Rewrites::update(const std::string& uri, std::uint64_t revision, const std::string& weights,
                      const void* model, std::unique_ptr<dialects::Rewriting> rewriting) {
  const support::FileStamp stamp = support::stamp_of(weights);
  const std::string subject = std::to_string(revision) + " " + weights + " " +
                              std::to_string(stamp.mtime_ns) + " " + std::to_string(stamp.size) +
                              " " + std::to_string(reinterpret_cast<std::uintptr_t>(model));
  Document& d = documents_[uri];
  if (d.subject == subject)
    return;
  d.subject = subject;
  d.pending = revision;
  std::shared_ptr<dialects::Rewriting> shared = std::move(rewriting);
  jobs_.submit(uri, [this, uri, revision, shared] {
    std::string none; // why nothing is offered
    auto offers = shared->run(worker_, kWorkerTimeout, none);
    return BackgroundJobs::Delivery(
        [this, uri, revision, none, offers = std::move(offers)]() mutable {
          if (!none.empty())
            log_.info("no rewrite offered for " + uri + ": " + none); // the io thread logs
          auto it = documents_.find(uri);
          if (it == documents_.end())
            return; // closed meanwhile
          if (it->second.pending == revision)
            it->second.pending = 0;
          it->second.revision = revision;
          it->second.offers = std::move(offers);
        });
  });
}

const std::vector<dialects::Rewrite>& Rewrites::offers(const std::string& uri,
                                                       std::uint64_t revision) const {
  static const std::vector<dialects::Rewrite> kNone;
  auto it = documents_.find(uri);
  if (it == documents_.end() || it->second.revision != revision)
    return kNone;
  return it->second.offers;
}

void Rewrites::want(const std::string& uri) {
  documents_[uri].wanted = true;
}

bool Rewrites::wanted(const std::string& uri) const {
  auto it = documents_.find(uri);
  return it != documents_.end() && it->second.wanted;
}

bool Rewrites::pending(const std::string& uri, std::uint64_t revision) const {
  auto it = documents_.find(uri);
  return it != documents_.end() && it->second.pending == revision;
}

void Rewrites::forget(const std::string& uri) {
  documents_.erase(uri);
  jobs_.cancel(uri);
}

dialects::NoWeights Rewrites::KeptAnswers::why_no_weights(const std::string& model,
                                                          std::chrono::milliseconds timeout) const {
  return model::weights_worker().why_no_weights(model, timeout);
}

std::string Rewrites::KeptAnswers::run(const std::string& model, const std::string& request,
                                       std::chrono::milliseconds timeout) const {
  const support::FileStamp stamp = support::stamp_of(model);
  const std::string key = model + "\n" + std::to_string(stamp.mtime_ns) + " " +
                          std::to_string(stamp.size) + " " + std::to_string(stamp.inode) + "\n" +
                          request;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = kept_.find(key); it != kept_.end())
      return *it->second;
  }
  auto answer =
      std::make_shared<const std::string>(model::weights_worker().run(model, request, timeout));
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_.emplace(key, answer).second) {
    kept_order_.push_back(key);
    if (kept_order_.size() > kKept) {
      kept_.erase(kept_order_.front());
      kept_order_.pop_front();
    }
  }
  return *answer;
}

} // namespace opscope::lsp
