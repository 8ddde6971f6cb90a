// How a model's load shows in the editor: opscope/status for the editors' status items, and
// $/progress for clients that accept work-done progress (one token per load, created with
// window/workDoneProgress/create and used only once the client accepted it).
#pragma once

#include "model_store.h"
#include "transport.h"

#include "opscope/protocol/lsp_types.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace opscope::lsp {

// opscope/status: one model's state, for the editors' status items.
struct ModelStatusParams {
  std::string state; // loading | ready | failed
  std::string model; // as the project names it
  std::optional<int> ops;
  std::string message;
};
inline void to_json(Json& j, const ModelStatusParams& p) {
  j = {{"state", p.state}, {"model", p.model}, {"message", p.message}};
  if (p.ops)
    j["ops"] = *p.ops;
}

class ModelProgress {
public:
  explicit ModelProgress(Transport& transport) : transport_(transport) {}

  // The client accepts work-done progress (its initialize capabilities).
  void set_client_progress(bool supported) { client_progress_ = supported; }
  // The session ended: answers that arrive later send nothing.
  void stop() { stopped_ = true; }

  void load_started(const LoadedModel& model);
  void load_finished(const LoadedModel& model); // Ready or Failed

private:
  void send_status(const LoadedModel& model);
  void notify_progress(const std::string& token, Json value);

  struct Progress {
    std::string token;
    bool created = false; // the client answered window/workDoneProgress/create
    bool begun = false;
    std::optional<std::string> end_message; // set when the load finished
  };

  Transport& transport_;
  bool client_progress_ = false;
  bool stopped_ = false;
  std::map<std::string, std::shared_ptr<Progress>> progress_; // per model key, while it loads
  int next_progress_ = 1;
};

} // namespace opscope::lsp
