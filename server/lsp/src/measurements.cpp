#include "measurements.h"

#include "opscope/model/weights_worker.h"

#include <chrono>

namespace opscope::lsp {
namespace {

// The editor's bound: a worker still running after this is stuck (the command line waits
// longer, dialects::kWeightsWorkerTimeout); it also bounds how long closing the server waits.
constexpr std::chrono::seconds kMeasureTimeout{60};

} // namespace

Measurements::Measurements(boost::asio::io_context& io, Logger& log, Measured on_measured)
    : on_measured_(std::move(on_measured)),
      jobs_(io, [this, &log](const std::string& uri, const std::string& what) {
        log.error("measuring the weights of " + uri + " failed: " + what);
        if (auto it = documents_.find(uri); it != documents_.end())
          it->second.measuring = 0; // no "computing…" forever
      }) {}

void Measurements::update(const std::string& uri, std::uint64_t revision, std::string weights,
                          std::unique_ptr<dialects::Measurement> measurement) {
  documents_[uri].measuring = revision;
  std::shared_ptr<dialects::Measurement> shared = std::move(measurement);
  jobs_.submit(uri, [this, uri, revision, weights = std::move(weights), shared] {
    auto result = measure(weights, *shared);
    return BackgroundJobs::Delivery([this, uri, revision, result = std::move(result)] {
      auto it = documents_.find(uri);
      if (it == documents_.end())
        return; // closed meanwhile
      it->second = {revision, result, 0};
      on_measured_(uri);
    });
  });
}

std::shared_ptr<const void> Measurements::measure(const std::string& weights,
                                                  dialects::Measurement& measurement) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++reading_;
  }
  // The config is read only here, before the worker runs: then no parse is held for seconds.
  std::string what;
  try {
    what = measurement.prepare();
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    --reading_;
    throw;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --reading_;
  }
  // The weights as they are on disk: a file rewritten is measured again.
  const std::string key = stamp_key(weights) + what;
  if (std::shared_ptr<const void> kept = kept_.find(key))
    return measurement.reuse(kept);
  std::shared_ptr<const void> result = measurement.run(model::weights_worker(), kMeasureTimeout);
  if (!result || !measurement.keeps(result))
    return result; // a failed worker: measured again after the next edit
  kept_.keep(key, result);
  return result;
}

std::optional<dialects::Measured> Measurements::state(const std::string& uri,
                                                      std::uint64_t revision) const {
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return std::nullopt;
  const Document& d = it->second;
  return dialects::Measured{d.result, d.result && d.revision == revision, d.measuring == revision};
}

void Measurements::forget(const std::string& uri) {
  documents_.erase(uri);
  jobs_.cancel(uri);
}

bool Measurements::reading_parses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reading_ != 0;
}

} // namespace opscope::lsp
