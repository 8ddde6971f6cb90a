// What each open config's dialect measures on its model's real weights (coreai-opt: the per-
// layer weight error, DialectDocument::measurement), on a thread of its own: the LibTorch worker
// takes 0.4 s to a few seconds, and neither a request nor the next check may wait behind it. A
// result is kept per (weights as they are on disk, what the measurement says it measures): an
// edit that leaves that as it was is answered from it at once; one that changes it is measured
// again, and the result of a measurement a newer edit superseded is dropped.
#pragma once

#include "background_jobs.h"
#include "kept_results.h"
#include "log.h"

#include "opscope/dialects/dialect.h"

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace opscope::lsp {

class Measurements {
public:
  // Called on the io thread when a document's measurement arrives.
  using Measured = std::function<void(const std::string& uri)>;
  Measurements(boost::asio::io_context& io, Logger& log, Measured on_measured);

  // Measures `revision` of `uri` on `weights` (call on the io thread, after each analysis).
  void update(const std::string& uri, std::uint64_t revision, std::string weights,
              std::unique_ptr<dialects::Measurement> measurement);
  // What the document's answers get at `revision`; nothing when `uri` was never measured.
  std::optional<dialects::Measured> state(const std::string& uri, std::uint64_t revision) const;
  void forget(const std::string& uri);
  // Whether the measuring thread may be reading a config parse now (Host::parses_in_use).
  bool reading_parses() const;

private:
  struct Document {
    std::uint64_t revision = 0; // of `result`
    std::shared_ptr<const void> result;
    std::uint64_t measuring = 0; // the revision being measured; 0: none
  };
  // Runs on the measuring thread.
  std::shared_ptr<const void> measure(const std::string& weights,
                                      dialects::Measurement& measurement);

  Measured on_measured_;
  std::map<std::string, Document> documents_; // io thread only

  // Results by weights, their stamp and what was measured (the measuring thread). A few
  // configs' worth: each is one row per weight.
  KeptResults<void> kept_{16};
  mutable std::mutex mutex_; // guards reading_
  int reading_ = 0;

  BackgroundJobs jobs_; // last: its thread stops before the members above go
};

} // namespace opscope::lsp
