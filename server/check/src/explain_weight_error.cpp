#include "explain_weight_error.h"

#include "opscope/model/model_kind.h"
#include "opscope/model/model_source.h"
#include "opscope/model/process.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace opscope::check {
namespace {

// A whole model's weights on 2 cores take seconds; a worker past this is stuck.
constexpr std::chrono::minutes kWorkerTimeout{10};

// A request file only this process writes, removed when it goes out of scope.
class RequestFile {
public:
  explicit RequestFile(const std::string& text) {
    std::string pattern = (fs::temp_directory_path() / "opscope-weights-XXXXXX").string();
    int fd = mkstemp(pattern.data());
    if (fd < 0)
      throw std::runtime_error("cannot create a temporary file in " +
                               fs::temp_directory_path().string());
    path_ = pattern;
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written)
      throw std::runtime_error("cannot write " + path_);
  }
  ~RequestFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  RequestFile(const RequestFile&) = delete;
  RequestFile& operator=(const RequestFile&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

std::string request_text(const index::Index& index, const std::vector<WeightErrorRow>& rows) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const WeightErrorRow& r : rows) {
    if (!r.quantization.not_computed.empty())
      continue;
    const resolve::WeightQuantization& q = r.quantization;
    nlohmann::json t = {{"parameter", index.parameters[static_cast<std::size_t>(q.parameter)].name},
                        {"qscheme", q.qscheme},
                        {"formulation", q.formulation},
                        {"quant_min", q.quant_min},
                        {"quant_max", q.quant_max},
                        {"block_size", q.block_size}};
    if (q.fold)
      t["fold"] = {{"weight", q.fold->weight},
                   {"running_var", q.fold->running_var},
                   {"eps", q.fold->eps},
                   {"axis", q.fold->axis}};
    tensors.push_back(std::move(t));
  }
  return nlohmann::json{{"tensors", tensors}}.dump();
}

// Whether the archive stores weight data, asked of opscope-inspect (no LibTorch to load);
// nothing with `why` set when it cannot say.
std::optional<bool> stores_weights(const std::string& archive, std::string& why) {
  model::ProcessResult run =
      model::run_process({model::worker_path(), archive, "--stores-weights"}, kWorkerTimeout);
  if (!run.ok()) {
    why = run.started ? model::last_line(run.stderr_text) : run.start_error;
    return std::nullopt;
  }
  return run.stdout_text.rfind("weights", 0) == 0;
}

void measure(const std::string& archive, const index::Index& index, WeightErrorReport& report) {
  const std::string worker = model::weights_worker_path();
  if (worker.empty()) {
    report.unavailable = "opscope-weights, the LibTorch worker that measures it, is not next to "
                         "opscope (build it: `cmake --build build --target opscope-weights`, "
                         "or set OPSCOPE_WEIGHTS)";
    return;
  }
  RequestFile request(request_text(index, report.rows));
  model::ProcessResult run =
      model::run_process({worker, archive, "--request", request.path()}, kWorkerTimeout);
  if (!run.ok()) {
    report.unavailable =
        run.timed_out
            ? "opscope-weights ran past " + std::to_string(kWorkerTimeout.count()) + " minutes"
        : run.signal  ? "opscope-weights crashed with " + model::describe_signal(run.signal)
        : run.started ? model::last_line(run.stderr_text)
                      : run.start_error;
    return;
  }
  std::istringstream lines(run.stdout_text);
  std::string line;
  std::getline(lines, line);
  if (nlohmann::json::parse(line, nullptr, false).value("weightless", false)) {
    report.unavailable = "no weights in this archive (exported weightless)";
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
      r.not_measured = answer.is_object() ? answer["error"].get<std::string>()
                                          : "the worker gave no answer for it";
      continue;
    }
    r.measured = true;
    if (answer["sqnr_db"].is_number())
      r.sqnr_db = answer["sqnr_db"].get<double>();
    r.relative_error = answer.value("relative_error", 0.0);
  }
}

std::string quantization_text(const index::Parameter& p, const resolve::WeightQuantization& q) {
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

WeightErrorReport weight_error(const config::ConfigDocument& document, const index::Index& index,
                               const std::string& model, const resolve::Resolution* resolution) {
  WeightErrorReport report;
  std::vector<resolve::WeightQuantization> weights =
      resolve::quantized_weights(document, index, resolution);
  if (weights.empty())
    return report;
  report.applies = true;
  for (resolve::WeightQuantization& q : weights)
    report.rows.push_back({std::move(q), false, std::nullopt, 0, ""});
  if (model::model_kind(model) != model::ModelKind::Archive) {
    report.unavailable = "it is read from the weights of a .pt2 archive exported with them "
                         "(`opscope export TARGET --with-weights -o model.pt2`, then "
                         "--model model.pt2)";
    return report;
  }
  std::string why;
  std::optional<bool> stored = stores_weights(model, why);
  if (!stored) {
    report.unavailable = why;
    return report;
  }
  if (!*stored) {
    report.unavailable = "no weights in this archive (exported weightless; `opscope export "
                         "--with-weights` keeps them)";
    return report;
  }
  try {
    measure(model, index, report);
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
                        const Paint& paint) {
  if (!report.unavailable.empty()) {
    std::cout << "weight error: not measured: " << report.unavailable << "\n";
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
  std::cout << paint(kBold, "weight error (the archive's weights as prepare() fake-quantizes them)")
            << "\n"
            << paint(kBold, padded("parameter", 9, w0) + "  " + padded("quantization", 12, w1) +
                                "  " + std::string(w2 - 7, ' ') + "SQNR dB  relative error")
            << "\n";
  for (const Cells& c : cells)
    std::cout << padded(paint(kCyan, c.parameter), c.parameter.size(), w0) << "  "
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
  std::cout << worst << "\n";
}

} // namespace opscope::check
