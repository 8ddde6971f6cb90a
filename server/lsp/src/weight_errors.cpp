#include "weight_errors.h"

#include "opscope/resolve/weight_quantization.h"
#include "opscope/support/file_stamp.h"

#include <chrono>

namespace opscope::lsp {
namespace {

// The editor's bound: a worker still running after this is stuck (the command line waits
// longer, model::kWeightErrorTimeout); it also bounds how long closing the server waits.
constexpr std::chrono::seconds kMeasureTimeout{60};

// Equal keys measure the same: the archive as it is on disk, the worker's request, and the
// weights it is not asked about (which rows the report holds).
std::string key_of(const std::string& archive, const index::Index& index,
                   const std::vector<resolve::WeightQuantization>& weights) {
  const support::FileStamp stamp = support::stamp_of(archive);
  std::string key = archive + "\n" + std::to_string(stamp.mtime_ns) + " " +
                    std::to_string(stamp.size) + " " + std::to_string(stamp.inode) + "\n" +
                    model::weight_error_request(index, weights);
  for (const resolve::WeightQuantization& q : weights)
    if (!q.not_computed.empty())
      key += "\n" + std::to_string(q.parameter) + " " + q.not_computed;
  return key;
}

} // namespace

WeightErrors::WeightErrors(boost::asio::io_context& io, Logger& log, Measured on_measured)
    : on_measured_(std::move(on_measured)),
      jobs_(io, [this, &log](const std::string& uri, const std::string& what) {
        log.error("measuring the weight error of " + uri + " failed: " + what);
        if (auto it = documents_.find(uri); it != documents_.end())
          it->second.measuring = 0; // no "computing…" forever
      }) {}

void WeightErrors::update(const std::string& uri, std::uint64_t revision, Subject subject) {
  documents_[uri].measuring = revision;
  jobs_.submit(uri, [this, uri, revision, subject = std::move(subject)]() mutable {
    auto report = measure(std::move(subject));
    return BackgroundJobs::Delivery([this, uri, revision, report = std::move(report)] {
      auto it = documents_.find(uri);
      if (it == documents_.end())
        return; // closed meanwhile
      it->second = {revision, report, 0};
      on_measured_(uri);
    });
  });
}

std::shared_ptr<const model::WeightErrorReport> WeightErrors::measure(Subject subject) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++reading_;
  }
  // The config is read only here, before the worker runs: then no parse is held for seconds.
  std::vector<resolve::WeightQuantization> weights;
  try {
    auto resolution =
        subject.decisions->get(*subject.config, *subject.index, subject.queries.get());
    weights = resolve::quantized_weights(*subject.config, *subject.index, resolution.get());
  } catch (...) {
    subject.config.reset();
    subject.decisions.reset();
    std::lock_guard<std::mutex> lock(mutex_);
    --reading_;
    throw;
  }
  subject.config.reset();
  subject.decisions.reset();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --reading_;
  }
  const std::string key = key_of(subject.archive, *subject.index, weights);
  std::shared_ptr<const model::WeightErrorReport> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = kept_.find(key); it != kept_.end())
      kept = it->second;
  }
  if (kept) {
    // The same numbers; this revision's rows (their deciders name this revision's keys).
    auto report = std::make_shared<model::WeightErrorReport>(*kept);
    for (std::size_t i = 0; i < report->rows.size() && i < weights.size(); ++i)
      report->rows[i].quantization = std::move(weights[i]);
    return report;
  }
  auto report = std::make_shared<const model::WeightErrorReport>(model::measure_weight_error(
      subject.archive, *subject.index, std::move(weights), kMeasureTimeout));
  if (!report->unavailable.empty() && !report->weightless)
    return report; // a failed worker: measured again after the next edit
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_.emplace(key, report).second) {
    kept_order_.push_back(key);
    if (kept_order_.size() > kKept) {
      kept_.erase(kept_order_.front());
      kept_order_.pop_front();
    }
  }
  return report;
}

std::optional<features::WeightErrorState> WeightErrors::state(const std::string& uri,
                                                              std::uint64_t revision) const {
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return std::nullopt;
  const Document& d = it->second;
  return features::WeightErrorState{d.report, d.report && d.revision == revision,
                                    d.measuring == revision};
}

void WeightErrors::forget(const std::string& uri) {
  documents_.erase(uri);
  jobs_.cancel(uri);
}

bool WeightErrors::reading_parses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reading_ != 0;
}

} // namespace opscope::lsp
