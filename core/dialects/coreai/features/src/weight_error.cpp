#include "opscope/features/weight_error.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace opscope::features {
namespace {

// The compressors whose weight error opscope-weights measures (resolve::quantized_weights).
bool measures_weights(config::Compressor root) {
  return root == config::Compressor::Quantizer || root == config::Compressor::MagnitudePruner ||
         root == config::Compressor::KMeansPalettizer;
}

const resolve::WeightErrorReport* report_of(const config::ConfigDocument& document,
                                          const Model* model) {
  if (!model || !model->index || !model->weight_error || !measures_weights(document.root))
    return nullptr;
  return model->weight_error->report.get();
}

const std::string& parameter_name(const Model& model, const resolve::WeightErrorRow& row) {
  return model.index->parameters[static_cast<std::size_t>(row.quantization.parameter)].name;
}

std::string decibels(const resolve::WeightErrorRow& row) {
  if (!row.sqnr_db)
    return "lossless";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f dB", *row.sqnr_db);
  return text;
}

std::string relative(const resolve::WeightErrorRow& row) {
  char text[32];
  std::snprintf(text, sizeof text, "%.5f", row.relative_error);
  return text;
}

// Lowest SQNR first; an unchanged weight (no error) last.
double order_of(const resolve::WeightErrorRow& row) {
  return row.sqnr_db ? *row.sqnr_db : std::numeric_limits<double>::infinity();
}

} // namespace

std::optional<CodeLens> weight_error_lens(const config::ConfigDocument& document,
                                          const Model* model) {
  if (!model || !model->index || !model->weight_error || !measures_weights(document.root))
    return std::nullopt;
  const resolve::WeightErrorReport* report = model->weight_error->report.get();
  if (!report) // before the first measurement of this config
    return model->weight_error->measuring
               ? std::optional<CodeLens>(CodeLens{document.root_range, "weight error: computing…"})
               : std::nullopt;
  // A weightless model or a failed measurement: no line above every config (hover says why).
  if (!report->applies || !report->unavailable.empty() || report->worst.empty())
    return std::nullopt;
  std::string title = "weight error, worst: ";
  for (std::size_t i = 0; i < report->worst.size(); ++i) {
    const resolve::WeightErrorRow& row = report->rows[static_cast<std::size_t>(report->worst[i])];
    title += (i ? ", " : "") + parameter_name(*model, row) + " " + decibels(row);
  }
  // An older revision's numbers while this one is measured (a spec changed: seconds on a
  // large model): said, rather than shown as this config's.
  const bool updating = !model->weight_error->current && model->weight_error->measuring;
  return CodeLens{document.root_range, title + " SQNR" + (updating ? " (updating…)" : "")};
}

std::optional<std::string> entry_weight_error_text(const config::ConfigDocument& document,
                                                   const Model* model, int key) {
  const resolve::WeightErrorReport* report = report_of(document, model);
  if (!model || !model->weight_error)
    return std::nullopt;
  if (!model->weight_error->current || !report)
    return model->weight_error->measuring && measures_weights(document.root)
               ? std::optional<std::string>("**Weight error**: computing…\n\n")
               : std::nullopt;
  std::vector<const resolve::WeightErrorRow*> measured;
  std::size_t decided = 0;
  std::string not_measured;
  for (const resolve::WeightErrorRow& row : report->rows) {
    const resolve::Decider& who = row.quantization.decider;
    if (who.kind != resolve::Decider::Kind::Key || who.key != key)
      continue;
    ++decided;
    if (row.measured)
      measured.push_back(&row);
    else if (not_measured.empty())
      not_measured = row.not_measured;
  }
  if (decided == 0)
    return std::nullopt;
  if (!report->unavailable.empty())
    return "**Weight error**: not measured: " + report->unavailable + ".\n\n";
  std::string text = document.root == config::Compressor::Quantizer
                         ? "**Weight error** (the model's weights as prepare() fake-quantizes them)"
                     : document.root == config::Compressor::MagnitudePruner
                         ? "**Weight error** (the model's weights as prepare() prunes them)"
                         : "**Weight error** (the model's weights as prepare() palettizes them)";
  if (!measured.empty()) {
    std::stable_sort(measured.begin(), measured.end(),
                     [](const auto* a, const auto* b) { return order_of(*a) < order_of(*b); });
    const resolve::WeightErrorRow& worst = *measured.front();
    if (measured.size() == 1) {
      text += " of the weight this entry decides: `" + parameter_name(*model, worst) + "` " +
              decibels(worst) + " SQNR, relative error " + relative(worst) + ".";
    } else {
      const resolve::WeightErrorRow& median = *measured[(measured.size() - 1) / 2];
      text += " of the " + std::to_string(measured.size()) +
              " weights this entry decides: worst `" + parameter_name(*model, worst) + "` " +
              decibels(worst) + " SQNR, relative error " + relative(worst) + "; median `" +
              parameter_name(*model, median) + "` " + decibels(median) + ", " + relative(median) +
              ".";
    }
  } else {
    text += ":";
  }
  if (decided > measured.size())
    text +=
        " " + std::to_string(decided - measured.size()) + " not measured: " + not_measured + ".";
  return text + "\n\n";
}

} // namespace opscope::features
