// The configs proposed for a few size budgets (engine/propose) for each open Quantizer config
// whose weights were measured (WeightErrors), offered as code actions. Measuring every
// weight under every choice takes seconds (GPT-2-124M's shape: ~10 s of CPU; minutes for a
// billion weights), so it starts only for a config whose proposals were asked for (a code
// action request where they would show: want), runs on a thread of its own after the weight
// error lands, and the actions are offered once it is done: a request never waits for it. The
// measurements are kept per (model as it is on disk, the worker's request), so an edit that leaves
// the candidates as they were costs only the resolutions and the allocation.
#pragma once

#include "background_jobs.h"
#include "log.h"

#include "opscope/config/document.h"
#include "opscope/index/index.h"
#include "opscope/propose/propose.h"

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace opscope::lsp {

class Proposals {
public:
  Proposals(boost::asio::io_context& io, Logger& log);

  // One revision of a config (its own copy of the text: the thread parses it again rather
  // than hold the workspace's parse for seconds).
  struct Subject {
    std::string model; // where the weights are: an archive or a checkpoint
    std::string path;  // the config's file, for messages
    std::string text;
    config::Format format = config::Format::Yaml;
    std::shared_ptr<const index::Index> index;
  };
  // A proposal and the budget it was asked for.
  struct Offer {
    std::string budget; // what was asked: "4.5 bits per weight", "this config's size"
    propose::Proposal proposal;
  };
  // Proposes for `revision` of `uri` (call on the io thread).
  void update(const std::string& uri, std::uint64_t revision, Subject subject);
  // The user asked for `uri`'s actions: it is proposed for from now on, each revision.
  void want(const std::string& uri);
  bool wanted(const std::string& uri) const;
  // Whether a proposal for `revision` is under way.
  bool pending(const std::string& uri, std::uint64_t revision) const;
  // The offers for `revision`; empty when it is not (yet) proposed for.
  const std::vector<Offer>& offers(const std::string& uri, std::uint64_t revision) const;
  void forget(const std::string& uri);

  // The budgets offered, in bits per weight (besides the config's own size).
  static const std::vector<double>& budgets();

private:
  struct Document {
    std::uint64_t revision = 0; // of `offers`
    std::vector<Offer> offers;
    std::string subject;       // what was last submitted: revision, model stamp, index
    std::uint64_t pending = 0; // the revision submitted and not delivered; 0: none
    bool wanted = false;       // its proposals were asked for
  };
  // Run on the proposing thread (which never logs: `none` says why nothing is offered).
  std::vector<Offer> propose_for(const Subject& subject, std::string& none);
  propose::SquaredErrors measure(const Subject& subject,
                                 const std::vector<resolve::WeightQuantization>& weights);

  Logger& log_;
  std::map<std::string, Document> documents_; // io thread only

  // Measurements by model, its stamp and the request (the proposing thread; guarded by the
  // mutex). Each is two numbers per weight and choice.
  static constexpr std::size_t kKept = 8;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const propose::SquaredErrors>> kept_;
  std::deque<std::string> kept_order_; // oldest first

  BackgroundJobs jobs_; // last: its thread stops before the members above go
};

} // namespace opscope::lsp
