#include "opscope/model/weights_worker.h"

#include "opscope/model/model_kind.h"
#include "opscope/model/model_source.h"
#include "opscope/model/process.h"

#include <filesystem>
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

class WeightsWorkerProcess final : public dialects::WeightsWorker {
public:
  dialects::NoWeights why_no_weights(const std::string& model,
                                     std::chrono::milliseconds timeout) const override;
  std::string run(const std::string& model, const std::string& request_text,
                  std::chrono::milliseconds timeout) const override;
};

std::string WeightsWorkerProcess::run(const std::string& model, const std::string& request_text,
                                      std::chrono::milliseconds timeout) const {
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

dialects::NoWeights WeightsWorkerProcess::why_no_weights(const std::string& model,
                                                         std::chrono::milliseconds timeout) const {
  std::error_code ec;
  if (fs::is_directory(model, ec) && !holds_safetensors(model))
    return {model + ": no .safetensors file here (a Hugging Face checkpoint saved with "
                    "save_pretrained(..., safe_serialization=True) has model.safetensors or "
                    "model-*-of-*.safetensors); name the folder or file that holds them with "
                    "`weights:` in opscope.yaml",
            true};
  if (is_checkpoint(model))
    return {};
  if (const ModelKind kind = model_kind(model); kind != ModelKind::Archive)
    // A Python model's simplest way is the project file's: its factory's own weights.
    return {std::string("it is read from real weights: ") +
                (kind == ModelKind::PythonTarget
                     ? "`weightless: false` in opscope.yaml (the model exported with the weights "
                       "its factory builds or loads), "
                     : "") +
                "a Hugging Face checkpoint's .safetensors (`weights: FOLDER` in opscope.yaml) or "
                "a .pt2 archive exported with them (`opscope export TARGET --with-weights -o "
                "model.pt2`, then --model model.pt2)",
            true};
  std::string why;
  std::optional<bool> stored = stores_weights(model, why, timeout);
  if (!stored)
    return {why, false};
  if (!*stored)
    return {"no weights in this archive (exported weightless; `opscope export --with-weights` "
            "keeps them)",
            true};
  return {};
}

} // namespace

const dialects::WeightsWorker& weights_worker() {
  static const WeightsWorkerProcess worker;
  return worker;
}

} // namespace opscope::model
