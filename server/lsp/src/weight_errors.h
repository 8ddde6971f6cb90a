// The per-layer weight error of each open Quantizer config (issue 28, model/weight_error.h),
// measured on a thread of its own: the LibTorch worker takes 0.4 s to a few seconds, and
// neither a request nor the next check may wait behind it. A measurement is kept per
// (archive as it is on disk, the weight specs the config resolves to): an edit that leaves every
// weight's spec as it was is answered from it at once; one that changes a spec is measured again,
// and the result of a measurement a newer edit superseded is dropped.
#pragma once

#include "background_jobs.h"
#include "log.h"

#include "opscope/config/document.h"
#include "opscope/features/model.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"
#include "opscope/model/weight_error.h"
#include "opscope/resolve/resolve.h"

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace opscope::lsp {

class WeightErrors {
public:
  // Called on the io thread when a document's measurement arrives.
  using Measured = std::function<void(const std::string& uri)>;
  WeightErrors(boost::asio::io_context& io, Logger& log, Measured on_measured);

  // What one revision of a config is measured on (shared immutably with the measuring thread).
  struct Subject {
    std::string archive; // the model's .pt2 (its index file or target: says it has no weights)
    std::shared_ptr<const config::ConfigDocument> config;
    std::shared_ptr<const index::Index> index;
    std::shared_ptr<const index::QueryEngine> queries;
    std::shared_ptr<const resolve::SharedResolution> decisions; // this revision's
  };
  // Measures `revision` of `uri` (call on the io thread, after each analysis).
  void update(const std::string& uri, std::uint64_t revision, Subject subject);
  // What the features get at `revision`; nothing when `uri` was never measured.
  std::optional<features::WeightErrorState> state(const std::string& uri,
                                                  std::uint64_t revision) const;
  void forget(const std::string& uri);
  // Whether the measuring thread may be reading a config parse now (Host::parses_in_use).
  bool reading_parses() const;

private:
  struct Document {
    std::uint64_t revision = 0; // of `report`
    std::shared_ptr<const model::WeightErrorReport> report;
    std::uint64_t measuring = 0; // the revision being measured; 0: none
  };
  // Runs on the measuring thread.
  std::shared_ptr<const model::WeightErrorReport> measure(Subject subject);

  Measured on_measured_;
  std::map<std::string, Document> documents_; // io thread only

  // Measurements by archive, its stamp and the request (the measuring thread; the mutex guards
  // them and `reading_`). A few configs' worth: each is one row per weight.
  static constexpr std::size_t kKept = 16;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const model::WeightErrorReport>> kept_;
  std::deque<std::string> kept_order_; // oldest first
  int reading_ = 0;

  BackgroundJobs jobs_; // last: its thread stops before the members above go
};

} // namespace opscope::lsp
