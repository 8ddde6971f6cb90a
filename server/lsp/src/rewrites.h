// The rewrites each open config's dialect offers as code actions (DialectDocument::rewriting;
// coreai-opt: configs proposed for a few size budgets), computed on the model's real weights
// on a thread of their own. They take seconds, so they start only for a config whose actions
// were asked for (a code action request where they would show: want), after its measurement
// lands, and are offered once done: a request never waits for them. The worker's answers are
// kept per (weights as they are on disk, the request), so an edit that leaves what is measured
// as it was costs only the rest.
#pragma once

#include "background_jobs.h"
#include "kept_results.h"
#include "log.h"

#include "opscope/dialects/dialect.h"
#include "opscope/dialects/workers.h"

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace opscope::lsp {

class Rewrites {
public:
  Rewrites(boost::asio::io_context& io, Logger& log);

  // Computes `revision` of `uri`'s rewrites on `weights` and `model` (call on the io thread).
  // The same revision on the same weights as they are on disk and the same model loaded is
  // computed already, or under way.
  void update(const std::string& uri, std::uint64_t revision, const std::string& weights,
              const void* model, std::unique_ptr<dialects::Rewriting> rewriting);
  // The user asked for `uri`'s actions: its rewrites are computed from now on, each revision.
  void want(const std::string& uri);
  bool wanted(const std::string& uri) const;
  // Whether the rewrites of `revision` are under way.
  bool pending(const std::string& uri, std::uint64_t revision) const;
  // The rewrites of `revision`; empty when it is not (yet) computed.
  const std::vector<dialects::Rewrite>& offers(const std::string& uri,
                                               std::uint64_t revision) const;
  void forget(const std::string& uri);

private:
  struct Document {
    std::uint64_t revision = 0; // of `offers`
    std::vector<dialects::Rewrite> offers;
    std::string subject;       // what was last submitted
    std::uint64_t pending = 0; // the revision submitted and not delivered; 0: none
    bool wanted = false;       // its actions were asked for
  };

  // The weights worker with its answers kept (the rewriting threads; the mutex guards them).
  class KeptAnswers final : public dialects::WeightsWorker {
  public:
    dialects::NoWeights why_no_weights(const std::string& model,
                                       std::chrono::milliseconds timeout) const override;
    std::string run(const std::string& model, const std::string& request,
                    std::chrono::milliseconds timeout) const override;

  private:
    // A few configs' worth: each is two numbers per weight and choice.
    mutable KeptResults<std::string> kept_{16};
  };

  Logger& log_;
  std::map<std::string, Document> documents_; // io thread only
  KeptAnswers worker_;
  BackgroundJobs jobs_; // last: its thread stops before the members above go
};

} // namespace opscope::lsp
