#include "weight_error_measurement.h"

#include "opscope/resolve/weight_error.h"
#include "opscope/resolve/weight_quantization.h"

#include <utility>
#include <vector>

namespace opscope::dialects::coreai {
namespace {

class WeightErrorMeasurement final : public Measurement {
public:
  explicit WeightErrorMeasurement(WeightErrorSubject subject) : subject_(std::move(subject)) {}

  std::string prepare() override {
    auto resolution =
        subject_.decisions->get(*subject_.config, *subject_.index, subject_.queries.get());
    weights_ = resolve::quantized_weights(*subject_.config, *subject_.index, resolution.get());
    subject_.config.reset();
    subject_.decisions.reset();
    // The worker's request, and the weights it is not asked about (which rows the report holds).
    std::string key = resolve::weight_error_request(*subject_.index, weights_);
    for (const resolve::WeightQuantization& q : weights_)
      if (!q.not_computed.empty())
        key += "\n" + std::to_string(q.parameter) + " " + q.not_computed;
    return key;
  }

  std::shared_ptr<const void> run(const WeightsWorker& worker,
                                  std::chrono::milliseconds timeout) override {
    return std::make_shared<const resolve::WeightErrorReport>(resolve::measure_weight_error(
        subject_.weights, *subject_.index, std::move(weights_), worker, timeout));
  }

  std::shared_ptr<const void> reuse(const std::shared_ptr<const void>& kept) override {
    // The same numbers; this revision's rows (their deciders name this revision's keys).
    auto report = std::make_shared<resolve::WeightErrorReport>(
        *static_cast<const resolve::WeightErrorReport*>(kept.get()));
    for (std::size_t i = 0; i < report->rows.size() && i < weights_.size(); ++i)
      report->rows[i].quantization = std::move(weights_[i]);
    return report;
  }

  bool keeps(const std::shared_ptr<const void>& result) const override {
    const auto& report = *static_cast<const resolve::WeightErrorReport*>(result.get());
    return report.unavailable.empty() || report.weightless;
  }

private:
  WeightErrorSubject subject_;
  std::vector<resolve::WeightQuantization> weights_;
};

} // namespace

std::unique_ptr<Measurement> weight_error_measurement(WeightErrorSubject subject) {
  return std::make_unique<WeightErrorMeasurement>(std::move(subject));
}

} // namespace opscope::dialects::coreai
