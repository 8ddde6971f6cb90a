// The loaded models, one per resolved ModelSpec. Loading never happens in
// this process: `opscope export` (Python targets) and `opscope index` run as
// child processes; the resulting index file is then read. A failed, crashed
// or hung worker leaves the last good index in place, with the error kept for
// diagnostics. The files a model comes from are polled (and watched by the
// client when it can), and a change rebuilds the model.
#pragma once

#include "child_process.h"
#include "log.h"
#include "opscope/project/project.h"
#include "opscope/workspace/workspace.h"

#include "opscope/index/index.h"
#include "opscope/index/query.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace opscope::lsp {

using workspace::ModelState;
using workspace::to_string;

using project::FileStamp;
using project::stamp_of;

// A model and how its load runs here: the workspace's view (spec, state, index, error)
// plus the worker and the files it is built from.
struct LoadedModel : workspace::Model {
  std::string step;                         // what is running now ("exporting", "indexing")
  std::map<std::string, FileStamp> watched; // the files it is built from
  int call_ops = 0;                         // ops shown in the tree (Call kind)

  // Internal to the store.
  std::shared_ptr<ChildProcess> worker;
  bool rebuild_pending = false;
  int generation = 0;
};

struct WorkerSettings {
  std::string executable;            // `opscope` itself, or OPSCOPE_LSP_WORKER
  std::chrono::milliseconds timeout; // per child process
  std::string cache_dir;             // where archives and index files go
  std::chrono::milliseconds poll_interval;
  static WorkerSettings from_environment();
};

class ModelStore {
public:
  struct Listener {
    std::function<void(const LoadedModel&)> load_started;
    std::function<void(const LoadedModel&)> load_finished; // Ready or Failed
    std::function<std::set<std::string>()> in_use;         // the keys the open configs use
    std::function<void()> released;                        // models were forgotten
  };
  ModelStore(boost::asio::io_context& io, Logger& log, WorkerSettings settings, Listener listener);
  ~ModelStore();

  // The model for `spec`, loading it the first time it is asked for.
  const LoadedModel& ensure(const project::ModelSpec& spec);
  const LoadedModel* find(const std::string& key) const;
  // The archive `spec`'s index is read from (a target's export in the cache; for an index file,
  // the file itself): where its weights are, if it kept them.
  std::string archive_of(const project::ModelSpec& spec) const;
  const std::map<std::string, std::unique_ptr<LoadedModel>>& all() const { return models_; }

  void reload(const std::string& key);
  void reload_all();
  // A file changed on disk (client watcher or poll): rebuild the models built from it.
  void file_changed(const std::string& path);
  // Forgets the models no open config uses (Listener::in_use), which stop being polled and
  // rebuilt: now (a project whose consent an edit revoked), or later (a config closed: when it
  // is opened again soon, switching files or reverting, its model is still loaded).
  void release_unused();
  void release_unused_later();

private:
  void start_load(LoadedModel& model);
  void log_child_warnings(const std::string& output);
  // `stamp` is written to `stamp_path` once the index is in place (reusable_stamp).
  void run_index(LoadedModel& model, const std::string& archive, int generation,
                 const std::string& stamp_path = "", const std::string& stamp = "");
  void finish(LoadedModel& model, int generation, const std::string& index_path,
              const std::string& error);
  void record_watched(LoadedModel& model);
  void poll();
  std::string cache_path(const project::ModelSpec& spec, const char* extension) const;

  boost::asio::io_context& io_;
  Logger& log_;
  WorkerSettings settings_;
  Listener listener_;
  boost::asio::steady_timer poll_timer_;
  boost::asio::steady_timer release_timer_;
  std::map<std::string, std::unique_ptr<LoadedModel>> models_;
};

} // namespace opscope::lsp
