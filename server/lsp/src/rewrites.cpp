#include "rewrites.h"

#include "opscope/model/weights_worker.h"

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
  const std::string subject = std::to_string(revision) + " " + stamp_key(weights) +
                              std::to_string(reinterpret_cast<std::uintptr_t>(model));
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
  const std::string key = stamp_key(model) + request;
  if (std::shared_ptr<const std::string> kept = kept_.find(key))
    return *kept;
  auto answer =
      std::make_shared<const std::string>(model::weights_worker().run(model, request, timeout));
  kept_.keep(key, answer);
  return *answer;
}

} // namespace opscope::lsp
