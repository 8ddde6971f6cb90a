#include "opscope/model/weight_error.h"

#include "opscope/model/model_kind.h"
#include "opscope/model/model_source.h"
#include "opscope/model/process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace fs = std::filesystem;

namespace opscope::model {
namespace {

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

// A Hugging Face checkpoint (a folder of .safetensors, or one): read by opscope-weights as it
// is, with no archive to ask about first.
bool is_checkpoint(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) || fs::path(path).extension() == ".safetensors";
}

// Whether a checkpoint folder holds any .safetensors: a model's config folder often holds
// config.json alone (the hub cache of a model only ever inspected), and LibTorch need not
// start to say so.
bool holds_safetensors(const std::string& folder) {
  constexpr std::size_t kMaxEntries = 100'000;
  std::error_code ec;
  std::size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".safetensors" || ++seen > kMaxEntries)
      return true; // the worker reads it, or says what is wrong
  }
  return false;
}

// Whether the archive stores weight data, asked of opscope-inspect (no LibTorch to load);
// nothing with `why` set when it cannot say.
std::optional<bool> stores_weights(const std::string& archive, std::string& why,
                                   std::chrono::milliseconds timeout) {
  ProcessResult run = run_process({worker_path(), archive, "--stores-weights"}, timeout);
  if (!run.ok()) {
    why = run.started ? last_line(run.stderr_text) : run.start_error;
    return std::nullopt;
  }
  return run.stdout_text.rfind("weights", 0) == 0;
}

void measure(const std::string& archive, WeightErrorReport& report, const std::string& request_text,
             std::chrono::milliseconds timeout) {
  const std::string output = run_weights_worker(archive, request_text, timeout);
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

std::string run_weights_worker(const std::string& model, const std::string& request_text,
                               std::chrono::milliseconds timeout) {
  const std::string worker = weights_worker_path();
  if (worker.empty())
    throw std::runtime_error("opscope-weights, the LibTorch worker that measures the weights, is "
                             "not next to opscope (build it: `cmake --build build --target "
                             "opscope-weights`, or set OPSCOPE_WEIGHTS)");
  RequestFile request(request_text);
  ProcessResult run = run_process({worker, model, "--request", request.path()}, timeout);
  if (!run.ok())
    throw std::runtime_error(
        run.timed_out ? "opscope-weights ran past " +
                            std::to_string(
                                std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) +
                            " s"
        : run.signal  ? "opscope-weights crashed with " + describe_signal(run.signal)
        : run.started ? last_line(run.stderr_text)
                      : run.start_error);
  return std::move(run.stdout_text);
}

std::string weight_error_request(const index::Index& index,
                                 const std::vector<resolve::WeightQuantization>& weights) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const resolve::WeightQuantization& q : weights) {
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
      const resolve::WeightQuantization::Palettization& s = *q.palettization;
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
                                       std::vector<resolve::WeightQuantization> weights,
                                       std::chrono::milliseconds timeout) {
  WeightErrorReport report;
  if (weights.empty())
    return report;
  report.applies = true;
  const std::string request = weight_error_request(index, weights);
  for (resolve::WeightQuantization& q : weights)
    report.rows.push_back({std::move(q), false, std::nullopt, 0, ""});
  std::error_code ec;
  if (fs::is_directory(model, ec) && !holds_safetensors(model)) {
    report.unavailable = model + ": no .safetensors file here (a Hugging Face checkpoint saved "
                                 "with save_pretrained(..., safe_serialization=True) has "
                                 "model.safetensors or model-*-of-*.safetensors); name the "
                                 "folder or file that holds them with `weights:` in opscope.yaml";
    report.weightless = true;
    return report;
  }
  if (!is_checkpoint(model)) {
    if (const ModelKind kind = model_kind(model); kind != ModelKind::Archive) {
      // A Python model's simplest way is the project file's: its factory's own weights.
      report.unavailable =
          std::string("it is read from real weights: ") +
          (kind == ModelKind::PythonTarget
               ? "`weightless: false` in opscope.yaml (the model exported with the weights its "
                 "factory builds or loads), "
               : "") +
          "a Hugging Face checkpoint's .safetensors (`weights: FOLDER` in opscope.yaml) or a "
          ".pt2 archive exported with them (`opscope export TARGET --with-weights -o "
          "model.pt2`, then --model model.pt2)";
      report.weightless = true;
      return report;
    }
    std::string why;
    std::optional<bool> stored = stores_weights(model, why, timeout);
    if (!stored) {
      report.unavailable = why;
      return report;
    }
    if (!*stored) {
      report.unavailable = "no weights in this archive (exported weightless; `opscope export "
                           "--with-weights` keeps them)";
      report.weightless = true;
      return report;
    }
  }
  try {
    measure(model, report, request, timeout);
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
                               const std::string& model, const resolve::Resolution* resolution) {
  return measure_weight_error(model, index,
                              resolve::quantized_weights(document, index, resolution));
}

} // namespace opscope::model
