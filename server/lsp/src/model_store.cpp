#include "model_store.h"

#include "opscope/index/serialize.h"
#include "opscope/support/cache_dir.h"
#include "opscope/support/version.h"

#include <boost/asio/post.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string_view>
#include <unistd.h>

namespace opscope::lsp {
namespace fs = std::filesystem;

namespace {

std::chrono::milliseconds env_ms(const char* name, std::chrono::milliseconds fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text)
    return fallback;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  return (end && *end == '\0' && value > 0) ? std::chrono::milliseconds(value) : fallback;
}

std::string self_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("opscope") : exe.string();
}

// Source files worth watching: the user's, not the installed libraries'.
bool is_user_source(const std::string& path) {
  return path.find("/site-packages/") == std::string::npos &&
         path.find("/dist-packages/") == std::string::npos && !path.empty() && path[0] == '/';
}

// The lines a child `opscope` marks as warnings (a damaged cache entry it rebuilt) belong in
// the server's log even when the child succeeds.
template <class Log> void log_warnings(const std::string& output, Log&& log) {
  constexpr std::string_view kMark = "opscope: warning: ";
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos)
      end = output.size();
    std::string_view line(output.data() + start, end - start);
    if (line.substr(0, kMark.size()) == kMark)
      log(std::string(line.substr(kMark.size())));
    start = end + 1;
  }
}

// A config closed and opened again (switching files, reverting) keeps its model loaded rather
// than reading the index again.
constexpr auto kReleaseDelay = std::chrono::seconds(30);

std::string stamp_text(const FileStamp& stamp) {
  return std::to_string(stamp.mtime_ns) + ":" + std::to_string(stamp.size) + ":" +
         std::to_string(stamp.inode);
}

// An hf: target is built from its config.json alone: the index of its last export stays
// good while that file, the interpreter, the spec and opscope are unchanged, so a restarted
// editor reads it (milliseconds) instead of exporting again (seconds to a minute for a 70B
// shape). Empty: not reusable (a Python target's code may import anything).
std::string reusable_stamp(const project::ModelSpec& spec) {
  FileStamp config = stamp_of(spec.path);
  if (!spec.target.starts_with("hf:") || spec.path.empty() || config.mtime_ns < 0)
    return "";
  return spec.key() + "\n" + stamp_text(config) + "\n" + stamp_text(stamp_of(spec.python)) + "\n" +
         support::version();
}

std::string read_small_file(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > 65536 ? "" : text;
}

int count_call_ops(const index::Index& index) {
  int count = 0;
  for (const auto& op : index.ops)
    count += op.kind == index::OpKind::Call;
  return count;
}

} // namespace

WorkerSettings WorkerSettings::from_environment() {
  WorkerSettings s;
  const char* worker = std::getenv("OPSCOPE_LSP_WORKER");
  s.executable = worker && *worker ? worker : self_executable();
  s.timeout = env_ms("OPSCOPE_LSP_TIMEOUT_MS", std::chrono::minutes(10));
  s.poll_interval = env_ms("OPSCOPE_LSP_POLL_MS", std::chrono::milliseconds(1000));
  s.cache_dir = support::cache_dir() + "/lsp"; // the CLI's cache folder, its own corner
  return s;
}

ModelStore::ModelStore(boost::asio::io_context& io, Logger& log, WorkerSettings settings,
                       Listener listener)
    : io_(io), log_(log), settings_(std::move(settings)), listener_(std::move(listener)),
      poll_timer_(io), release_timer_(io) {
  poll();
}

ModelStore::~ModelStore() {
  poll_timer_.cancel();
  release_timer_.cancel();
  for (auto& [key, model] : models_)
    if (model->worker)
      model->worker->kill();
}

const LoadedModel& ModelStore::ensure(const project::ModelSpec& spec) {
  std::string key = spec.key();
  auto it = models_.find(key);
  if (it != models_.end())
    return *it->second;
  auto model = std::make_unique<LoadedModel>();
  model->spec = spec;
  LoadedModel& ref = *model;
  models_[key] = std::move(model);
  start_load(ref);
  return ref;
}

const LoadedModel* ModelStore::find(const std::string& key) const {
  auto it = models_.find(key);
  return it == models_.end() ? nullptr : it->second.get();
}

void ModelStore::reload(const std::string& key) {
  auto it = models_.find(key);
  if (it == models_.end())
    return;
  LoadedModel& model = *it->second;
  std::error_code ec;
  fs::remove(cache_path(model.spec, ".stamp"), ec); // asked for again: export it again
  if (model.worker) {
    model.rebuild_pending = true; // after the running one, so its result is not stale
    return;
  }
  start_load(model);
}

void ModelStore::reload_all() {
  for (auto& [key, model] : models_)
    reload(key);
}

void ModelStore::release_unused() {
  std::set<std::string> keys = listener_.in_use();
  bool released = false;
  for (auto it = models_.begin(); it != models_.end();) {
    if (keys.count(it->first) == 0 && !it->second->worker) {
      it = models_.erase(it);
      released = true;
    } else {
      ++it;
    }
  }
  if (released && listener_.released)
    listener_.released();
}

void ModelStore::release_unused_later() {
  release_timer_.expires_after(kReleaseDelay); // a later close restarts the wait
  release_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec)
      release_unused();
  });
}

void ModelStore::file_changed(const std::string& path) {
  for (auto& [key, model] : models_) {
    auto watched = model->watched.find(path);
    if (watched != model->watched.end() && watched->second != stamp_of(path)) {
      log_.info(path + " changed; rebuilding " + model->spec.written);
      reload(key);
    }
  }
}

void ModelStore::poll() {
  for (auto& [key, model] : models_) {
    if (model->worker)
      continue; // stamps are compared again when it finishes
    for (const auto& [path, stamp] : model->watched) {
      if (stamp_of(path) != stamp) {
        log_.info(path + " changed; rebuilding " + model->spec.written);
        start_load(*model);
        break;
      }
    }
  }
  poll_timer_.expires_after(settings_.poll_interval);
  poll_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec)
      poll();
  });
}

void ModelStore::record_watched(LoadedModel& model) {
  const project::ModelSpec& spec = model.spec;
  std::map<std::string, FileStamp> watched;
  if (!spec.path.empty())
    watched[spec.path] = stamp_of(spec.path);
  if (spec.kind == project::ModelKind::PythonTarget && model.index)
    for (const auto& file : model.index->provenance.source_files)
      if (is_user_source(file))
        watched[file] = stamp_of(file);
  model.watched = std::move(watched);
}

std::string ModelStore::cache_path(const project::ModelSpec& spec, const char* extension) const {
  std::size_t hash = std::hash<std::string>{}(spec.key());
  char name[64];
  std::snprintf(name, sizeof name, "model-%016zx%s", hash, extension);
  return (fs::path(settings_.cache_dir) / name).string();
}

void ModelStore::start_load(LoadedModel& model) {
  int generation = ++model.generation;
  model.state = ModelState::Loading;
  model.rebuild_pending = false;
  record_watched(model); // before building, so edits during the build trigger another
  const project::ModelSpec& spec = model.spec;
  std::error_code ec;
  fs::create_directories(settings_.cache_dir, ec);

  switch (spec.kind) {
  case project::ModelKind::IndexFile:
    model.step = "reading the index";
    listener_.load_started(model);
    // Deferred so callers see the Loading state first, like the other kinds.
    boost::asio::post(io_, [this, key = spec.key(), generation] {
      auto it = models_.find(key);
      if (it != models_.end())
        finish(*it->second, generation, it->second->spec.path, "");
    });
    return;
  case project::ModelKind::Archive:
    model.step = "indexing";
    listener_.load_started(model);
    run_index(model, spec.path, generation);
    return;
  case project::ModelKind::PythonTarget: {
    std::string stamp = reusable_stamp(spec);
    std::string stamp_path = cache_path(spec, ".stamp");
    if (!stamp.empty() && read_small_file(stamp_path) == stamp &&
        fs::is_regular_file(cache_path(spec, ".json"), ec)) {
      model.step = "reading the index";
      listener_.load_started(model);
      boost::asio::post(
          io_, [this, key = spec.key(), generation, stamp_path, index = cache_path(spec, ".json")] {
            auto it = models_.find(key);
            if (it == models_.end())
              return;
            finish(*it->second, generation, index, "");
            if (it->second->state == ModelState::Failed) { // damaged since: export it again
              std::error_code ignored;
              fs::remove(stamp_path, ignored);
              start_load(*it->second);
            }
          });
      return;
    }
    fs::remove(stamp_path, ec); // written again once this export's index is in place
    model.step = "exporting";
    listener_.load_started(model);
    std::string archive = cache_path(spec, ".pt2");
    std::vector<std::string> argv = {settings_.executable, "export", spec.target};
    for (const auto& input : spec.inputs) {
      argv.push_back("--input");
      argv.push_back(input);
    }
    argv.insert(argv.end(),
                {"-o", archive, "--python", spec.python, "--mode", index::to_string(spec.mode)});
    if (!spec.weightless) // weightless is the default
      argv.push_back("--with-weights");
    if (!spec.hf_class.empty())
      argv.insert(argv.end(), {"--hf-class", spec.hf_class});
    log_.info("exporting " + spec.written + " with " + spec.python);
    model.worker = ChildProcess::start(
        io_, argv, spec.work_dir, settings_.timeout,
        [this, key = spec.key(), archive, generation, stamp,
         stamp_path](const ChildResult& result) {
          auto it = models_.find(key);
          if (it == models_.end())
            return;
          LoadedModel& m = *it->second;
          m.worker.reset();
          if (!result.ok())
            return finish(m, generation, "", result.describe("exporting " + m.spec.written));
          m.step = "indexing";
          listener_.load_started(m);
          run_index(m, archive, generation, stamp.empty() ? "" : stamp_path, stamp);
        });
    return;
  }
  }
}

std::string ModelStore::archive_of(const project::ModelSpec& spec) const {
  return spec.kind == project::ModelKind::PythonTarget ? cache_path(spec, ".pt2") : spec.path;
}

void ModelStore::run_index(LoadedModel& model, const std::string& archive, int generation,
                           const std::string& stamp_path, const std::string& stamp) {
  std::string index_path = cache_path(model.spec, ".json");
  std::vector<std::string> argv = {settings_.executable,
                                   "index",
                                   archive,
                                   "--mode",
                                   index::to_string(model.spec.mode),
                                   "-o",
                                   index_path};
  log_.info("indexing " + archive + " (" + index::to_string(model.spec.mode) + " mode)");
  model.worker = ChildProcess::start(
      io_, argv, model.spec.work_dir, settings_.timeout,
      [this, key = model.spec.key(), index_path, generation, stamp_path,
       stamp](const ChildResult& result) {
        auto it = models_.find(key);
        if (it == models_.end())
          return;
        LoadedModel& m = *it->second;
        m.worker.reset();
        log_child_warnings(result.output);
        if (result.ok() && !stamp_path.empty() && generation == m.generation)
          std::ofstream(stamp_path) << stamp; // the next session reads this index as it is
        finish(m, generation, index_path,
               result.ok() ? "" : result.describe("indexing " + m.spec.written));
      });
}

void ModelStore::log_child_warnings(const std::string& output) {
  log_warnings(output, [this](const std::string& line) { log_.warning(line); });
}

void ModelStore::finish(LoadedModel& model, int generation, const std::string& index_path,
                        const std::string& error) {
  if (generation != model.generation)
    return;
  model.step.clear();
  std::string problem = error;
  if (problem.empty()) {
    try {
      auto loaded = std::make_shared<index::Index>(index::load_index(index_path));
      auto queries = std::make_shared<const index::QueryEngine>(*loaded);
      model.call_ops = count_call_ops(*loaded);
      model.queries = std::move(queries); // frees the old engine before the index it reads
      model.index = std::move(loaded);
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  if (problem.empty()) {
    model.state = ModelState::Ready;
    model.error.clear();
    log_.info(model.spec.written + " is ready: " + std::to_string(model.call_ops) + " ops");
  } else {
    model.state = ModelState::Failed;
    model.error = problem;
    log_.error(problem);
  }
  // Source files come from the new index; a change made while building
  // (stamps differ from the ones recorded at the start) means build again.
  auto before = model.watched;
  bool changed_meanwhile = false;
  for (const auto& [path, stamp] : before)
    changed_meanwhile |= stamp_of(path) != stamp;
  record_watched(model);
  for (const auto& [path, stamp] : before)
    if (model.watched.count(path))
      model.watched[path] = stamp; // keep the old stamp so the poll sees the change
  listener_.load_finished(model);
  if (model.rebuild_pending || changed_meanwhile)
    start_load(model);
}

} // namespace opscope::lsp
