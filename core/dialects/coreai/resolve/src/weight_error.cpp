#include "opscope/resolve/weight_error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace opscope::resolve {
namespace {

void measure(const std::string& archive, WeightErrorReport& report, const std::string& request_text,
             const dialects::WeightsWorker& worker, std::chrono::milliseconds timeout) {
  const std::string output = worker.run(archive, request_text, timeout);
  std::istringstream lines(output);
  std::string line;
  std::getline(lines, line);
  if (nlohmann::json::parse(line, nullptr, false).value("weightless", false)) {
    report.unavailable = "no weights in this archive (exported weightless)";
    report.weightless = true;
    return;
  }
  for (WeightErrorRow& r : report.rows) {
    if (!r.quantization.not_computed.empty()) {
      r.not_measured = r.quantization.not_computed;
      continue;
    }
    nlohmann::json answer =
        std::getline(lines, line) ? nlohmann::json::parse(line, nullptr, false) : nlohmann::json();
    if (!answer.is_object() || answer.contains("error")) {
      r.not_measured = answer.is_object() && answer["error"].is_string()
                           ? answer["error"].get<std::string>()
                           : "the worker gave no answer for it";
      continue;
    }
    r.measured = true;
    if (answer["sqnr_db"].is_number())
      r.sqnr_db = answer["sqnr_db"].get<double>();
    r.relative_error = answer.value("relative_error", 0.0);
  }
}

} // namespace

std::string weight_error_request(const index::Index& index,
                                 const std::vector<WeightQuantization>& weights) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const WeightQuantization& q : weights) {
    if (!q.not_computed.empty())
      continue;
    const index::Parameter& p = index.parameters[static_cast<std::size_t>(q.parameter)];
    // Its other names and its shape: a checkpoint stores a tied weight once, under any of
    // them, and a checkpoint of another model must not be measured.
    nlohmann::json t = {{"parameter", p.name}, {"aliases", p.aliases}, {"shape", p.shape}};
    if (q.pruning) {
      t["method"] = "prune";
      t["sparsity"] = q.pruning->sparsity;
      t["channel_axis"] =
          q.pruning->channel_axis ? nlohmann::json(*q.pruning->channel_axis) : nullptr;
    } else if (q.palettization) {
      const WeightQuantization::Palettization& s = *q.palettization;
      t.update({{"method", "palettize"},
                {"n_bits", s.n_bits},
                {"axis", s.axis},
                {"group_size", s.group_size},
                {"per_channel_scale", s.per_channel_scale},
                {"fast_kmeans", s.fast_kmeans},
                {"rounding_precision", s.rounding_precision}});
    } else {
      t.update({{"qscheme", q.qscheme},
                {"formulation", q.formulation},
                {"quant_min", q.quant_min},
                {"quant_max", q.quant_max},
                {"block_size", q.block_size}});
    }
    if (q.fold)
      t["fold"] = {{"weight", q.fold->weight},
                   {"running_var", q.fold->running_var},
                   {"eps", q.fold->eps},
                   {"axis", q.fold->axis}};
    tensors.push_back(std::move(t));
  }
  return nlohmann::json{{"tensors", tensors}}.dump();
}

WeightErrorReport measure_weight_error(const std::string& model, const index::Index& index,
                                       std::vector<WeightQuantization> weights,
                                       const dialects::WeightsWorker& worker,
                                       std::chrono::milliseconds timeout) {
  WeightErrorReport report;
  if (weights.empty())
    return report;
  report.applies = true;
  const std::string request = weight_error_request(index, weights);
  for (WeightQuantization& q : weights)
    report.rows.push_back({std::move(q), false, std::nullopt, 0, ""});
  if (dialects::NoWeights none = worker.why_no_weights(model, timeout); !none.why.empty()) {
    report.unavailable = std::move(none.why);
    report.weightless = none.weightless;
    return report;
  }
  try {
    measure(model, report, request, worker, timeout);
  } catch (const std::exception& e) {
    report.unavailable = e.what();
  }
  if (!report.unavailable.empty())
    return report;
  std::vector<int> order;
  for (std::size_t i = 0; i < report.rows.size(); ++i)
    if (report.rows[i].measured && report.rows[i].sqnr_db)
      order.push_back(static_cast<int>(i));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return *report.rows[static_cast<std::size_t>(a)].sqnr_db <
           *report.rows[static_cast<std::size_t>(b)].sqnr_db;
  });
  order.resize(std::min<std::size_t>(order.size(), 3));
  report.worst = std::move(order);
  return report;
}

WeightErrorReport weight_error(const config::ConfigDocument& document, const index::Index& index,
                               const std::string& model, const Resolution* resolution,
                               const dialects::WeightsWorker& worker) {
  return measure_weight_error(model, index, quantized_weights(document, index, resolution), worker);
}

} // namespace opscope::resolve
