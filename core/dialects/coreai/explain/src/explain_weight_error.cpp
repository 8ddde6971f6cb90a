#include "explain_weight_error.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace opscope::coreai_explain {
namespace {

std::string pruning_text(const resolve::WeightQuantization::Pruning& p) {
  char sparsity[32];
  std::snprintf(sparsity, sizeof sparsity, "%g", p.sparsity);
  return std::string("pruned ") + sparsity +
         (p.channel_axis ? " channels (axis " + std::to_string(*p.channel_axis) + ")"
                         : " unstructured");
}

std::string palettization_text(const resolve::WeightQuantization::Palettization& p) {
  std::string text = "palette " + std::to_string(p.n_bits) + " bits";
  text += p.group_size ? " per " + std::to_string(p.group_size) + " channels (axis " +
                             std::to_string(p.axis) + ")"
                       : " per tensor";
  return p.per_channel_scale ? text + " x channel scale" : text;
}

std::string quantization_text(const index::Parameter& p, const resolve::WeightQuantization& q) {
  if (q.pruning)
    return pruning_text(*q.pruning);
  if (q.palettization)
    return palettization_text(*q.palettization);
  std::string text = q.dtype + " " + q.qscheme + (q.formulation == "minval" ? " minval" : "");
  if (q.fold)
    text = "(x bn) " + text;
  if (q.block_size == p.shape)
    return text + " per tensor";
  int channel_axis = -1, differing = 0;
  for (std::size_t i = 0; i < q.block_size.size(); ++i)
    if (q.block_size[i] != p.shape[i]) {
      ++differing;
      channel_axis = q.block_size[i] == 1 ? static_cast<int>(i) : -1;
    }
  if (differing == 1 && channel_axis >= 0)
    return text + " per channel (axis " + std::to_string(channel_axis) + ")";
  text += " block ";
  for (std::size_t i = 0; i < q.block_size.size(); ++i)
    text += (i ? "x" : "") + std::to_string(q.block_size[i]);
  return text;
}

std::string sqnr_text(const WeightErrorRow& r) {
  if (!r.sqnr_db)
    return "lossless";
  char cell[32];
  std::snprintf(cell, sizeof cell, "%.2f", *r.sqnr_db);
  return cell;
}

} // namespace

nlohmann::ordered_json weight_error_json(const WeightErrorReport& report,
                                         const index::Index& index) {
  if (!report.unavailable.empty())
    return {{"unavailable", report.unavailable}};
  auto name = [&](const WeightErrorRow& r) {
    return index.parameters[static_cast<std::size_t>(r.quantization.parameter)].name;
  };
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const WeightErrorRow& r : report.rows) {
    if (!r.measured) {
      rows.push_back({{"parameter", name(r)}, {"not_measured", r.not_measured}});
      continue;
    }
    const resolve::WeightQuantization& q = r.quantization;
    const auto sqnr = r.sqnr_db ? nlohmann::ordered_json(*r.sqnr_db) : nullptr;
    if (q.pruning) {
      rows.push_back(
          {{"parameter", name(r)},
           {"target_sparsity", q.pruning->sparsity},
           {"channel_axis",
            q.pruning->channel_axis ? nlohmann::ordered_json(*q.pruning->channel_axis) : nullptr},
           {"sqnr_db", sqnr},
           {"relative_error", r.relative_error}});
      continue;
    }
    if (q.palettization) {
      const resolve::WeightQuantization::Palettization& s = *q.palettization;
      rows.push_back({{"parameter", name(r)},
                      {"n_bits", s.n_bits},
                      {"group_size", s.group_size ? nlohmann::ordered_json(s.group_size) : nullptr},
                      {"axis", s.group_size ? nlohmann::ordered_json(s.axis) : nullptr},
                      {"enable_per_channel_scale", s.per_channel_scale},
                      {"sqnr_db", sqnr},
                      {"relative_error", r.relative_error}});
      continue;
    }
    rows.push_back({{"parameter", name(r)},
                    {"dtype", q.dtype},
                    {"qscheme", q.qscheme},
                    {"qformulation", q.formulation},
                    {"block_size", q.block_size},
                    {"folded_with", q.fold ? nlohmann::ordered_json(q.fold->weight) : nullptr},
                    {"sqnr_db", r.sqnr_db ? nlohmann::ordered_json(*r.sqnr_db) : nullptr},
                    {"relative_error", r.relative_error}});
  }
  nlohmann::ordered_json worst = nlohmann::ordered_json::array();
  for (int i : report.worst)
    worst.push_back(name(report.rows[static_cast<std::size_t>(i)]));
  return {{"parameters", rows}, {"worst", worst}};
}

void print_weight_error(const WeightErrorReport& report, const index::Index& index,
                        const Paint& paint, std::ostream& out) {
  if (!report.unavailable.empty()) {
    out << "weight error: not measured: " << report.unavailable << "\n";
    return;
  }
  struct Cells {
    std::string parameter, quantization, sqnr, error;
  };
  std::vector<Cells> cells;
  std::size_t w0 = 9, w1 = 12, w2 = 7;
  for (const WeightErrorRow& r : report.rows) {
    const index::Parameter& p =
        index.parameters[static_cast<std::size_t>(r.quantization.parameter)];
    Cells c{p.name, "", "", ""};
    if (r.measured) {
      c.quantization = quantization_text(p, r.quantization);
      c.sqnr = sqnr_text(r);
      char error[32];
      std::snprintf(error, sizeof error, "%.5f", r.relative_error);
      c.error = error;
    } else {
      c.quantization = "not measured: " + r.not_measured;
    }
    w0 = std::max(w0, c.parameter.size());
    w1 = std::max(w1, c.quantization.size());
    w2 = std::max(w2, c.sqnr.size());
    cells.push_back(std::move(c));
  }
  const bool quantized = std::none_of(report.rows.begin(), report.rows.end(), [](const auto& r) {
    return r.quantization.pruning || r.quantization.palettization;
  });
  out << paint(kBold, quantized
                          ? "weight error (the archive's weights as prepare() fake-quantizes them)"
                          : "weight error (the archive's weights as prepare() compresses them)")
      << "\n"
      << paint(kBold,
               padded("parameter", 9, w0) + "  " +
                   (quantized ? padded("quantization", 12, w1) : padded("compression", 11, w1)) +
                   "  " + std::string(w2 - 7, ' ') + "SQNR dB  relative error")
      << "\n";
  for (const Cells& c : cells)
    out << padded(paint(kCyan, c.parameter), c.parameter.size(), w0) << "  "
        << padded(c.quantization, c.quantization.size(), w1) << "  "
        << std::string(w2 - c.sqnr.size(), ' ') << c.sqnr << "  " << c.error << "\n";
  if (report.worst.empty())
    return;
  std::string worst = "worst: ";
  for (std::size_t i = 0; i < report.worst.size(); ++i) {
    const WeightErrorRow& r = report.rows[static_cast<std::size_t>(report.worst[i])];
    worst += (i ? ", " : "") +
             index.parameters[static_cast<std::size_t>(r.quantization.parameter)].name + " (" +
             sqnr_text(r) + " dB)";
  }
  out << worst << "\n";
}

} // namespace opscope::coreai_explain
