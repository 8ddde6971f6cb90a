#include "model_progress.h"

namespace opscope::lsp {
namespace {

constexpr const char* kStatus = "opscope/status";
constexpr const char* kProgress = "$/progress";

} // namespace

void ModelProgress::notify_progress(const std::string& token, Json value) {
  transport_.notify(kProgress, Json(protocol::ProgressParams{token, std::move(value)}));
}

void ModelProgress::send_status(const LoadedModel& model) {
  ModelStatusParams status{to_string(model.state), model.spec.written, std::nullopt, ""};
  if (model.index)
    status.ops = model.call_ops;
  if (model.state == ModelState::Loading)
    status.message = model.step + " " + model.spec.written;
  else if (model.state == ModelState::Failed)
    status.message = model.error;
  else
    status.message = model.spec.written + ": " + std::to_string(model.call_ops) + " ops";
  transport_.notify(kStatus, Json(status));
}

void ModelProgress::load_started(const LoadedModel& model) {
  send_status(model);
  std::string key = model.spec.key();
  if (!client_progress_)
    return;
  auto& progress = progress_[key];
  if (progress && !progress->end_message) {
    if (progress->begun) // the next step of the same load
      notify_progress(progress->token,
                      protocol::progress_report(model.step + " " + model.spec.written));
    return;
  }
  progress = std::make_shared<Progress>();
  progress->token = "opscope-load-" + std::to_string(next_progress_++);
  std::string message = model.step + " " + model.spec.written;
  // The token may only be used once the client has accepted it.
  transport_.call("window/workDoneProgress/create", {{"token", progress->token}},
                  [this, progress, message](const protocol::Response& response) {
                    if (stopped_ || response.error)
                      return;
                    progress->created = true;
                    progress->begun = true;
                    notify_progress(progress->token, protocol::progress_begin("opscope", message));
                    if (progress->end_message)
                      notify_progress(progress->token,
                                      protocol::progress_end(*progress->end_message));
                  });
}

void ModelProgress::load_finished(const LoadedModel& model) {
  send_status(model);
  auto it = progress_.find(model.spec.key());
  if (it == progress_.end())
    return;
  auto progress = it->second;
  progress->end_message =
      model.state == ModelState::Ready
          ? model.spec.written + " ready: " + std::to_string(model.call_ops) + " ops"
          : "failed: " + model.error;
  if (progress->begun)
    notify_progress(progress->token, protocol::progress_end(*progress->end_message));
  progress_.erase(it);
}

} // namespace opscope::lsp
