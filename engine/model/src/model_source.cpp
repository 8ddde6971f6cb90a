#include "opscope/model/model_source.h"

#include "file_hash.h"
#include "opscope/index/serialize.h"
#include "opscope/inspect/content_hash.h"
#include "opscope/model/process.h"
#include "opscope/support/cache_dir.h"
#include "opscope/support/regular_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace opscope::model {
namespace {

constexpr const char* kModelKinds = "give a .pt2 archive (torch.export.save), an index file "
                                    "(`opscope index`), or a Python target like model.py:build";

void progress(const Settings& settings, const std::string& line) {
  if (settings.quiet)
    return;
  if (settings.on_progress)
    settings.on_progress(line);
  else
    std::cerr << "opscope: " << line << std::endl;
}

// Shown even with --quiet: the language server relays these lines to its log.
void warn(const std::string& line) {
  std::cerr << "opscope: warning: " << line << std::endl;
}

// A cache key file's content hash, or "" if the file is missing, damaged or not a file.
std::string read_cached_hash(const std::string& path) {
  std::string text;
  try {
    text = support::read_regular_file(path, 64);
  } catch (const support::FileReadError&) {
    return "";
  }
  bool is_hash =
      text.size() == 16 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
  return is_hash ? text : "";
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// "size:mtime_ns" of a file; empty if it cannot be stat'ed.
std::string stat_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return "";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

// Which file a path names right now: the helper replaces the archive by renaming a new file
// over it, so a successful export always changes the inode or the modification time.
struct FileIdentity {
  bool exists = false;
  std::uint64_t inode = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t size = 0;
  bool operator==(const FileIdentity&) const = default;
};

FileIdentity identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return {};
  return {true, static_cast<std::uint64_t>(st.st_ino),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<std::int64_t>(st.st_size)};
}

// "disk full (ENOSPC): no space left in DIR" when the file system `path` goes to is full.
std::optional<std::string> full_disk_problem(const std::string& path) {
  std::string dir = fs::path(fs::absolute(path)).parent_path().string();
  struct statvfs fsinfo {};
  if (::statvfs(dir.c_str(), &fsinfo) != 0)
    return std::nullopt;
  // "Full" with a little slack: the failed write may have left a partial file behind.
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(fsinfo.f_bavail) * fsinfo.f_frsize;
  if (free_bytes >= (std::uint64_t{1} << 20))
    return std::nullopt;
  return "disk full (ENOSPC): no space left in " + dir + " (" + std::to_string(free_bytes) +
         " bytes free); free some space or write elsewhere";
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string executable_dir() {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.parent_path().string();
}

// The helper's warnings (a weightless export that fell back to real weights) on success.
void relay_helper_warnings(const std::string& helper_stderr) {
  const std::string prefix = "opscope-export: warning: ";
  std::istringstream lines(helper_stderr);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(prefix))
      warn(line.substr(prefix.size()));
}

std::string ensure_cache_subdir(const std::string& name) {
  std::string dir = support::cache_dir() + "/" + name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw ModelError(dir + ": cannot create the cache folder (" + ec.message() +
                     "); set XDG_CACHE_HOME to a writable folder");
  return dir;
}

// Moves a finished temporary file into its cache slot (atomic on one file system).
void publish(const std::string& temporary, const std::string& final_path) {
  std::error_code ec;
  fs::rename(temporary, final_path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    throw ModelError(final_path + ": cannot write the cache entry (" + ec.message() + ")");
  }
}

std::string temporary_name(const std::string& final_path) {
  return final_path + ".tmp-" + std::to_string(::getpid());
}

// Newest modification among the Python files a target's code most likely lives in: the
// target file's folder, or the top-level package folder of a dotted module.
std::string python_source_stamp(const std::string& target) {
  if (target.starts_with("hf:")) { // the config file is the source (a cached model id: none)
    fs::path config = target.substr(3);
    std::error_code ec;
    if (fs::is_directory(config, ec))
      config /= "config.json";
    return stat_stamp(config.string());
  }
  std::string where = target.substr(0, target.rfind(':'));
  fs::path root;
  bool recursive = false;
  if (where.ends_with(".py") || where.find('/') != std::string::npos) {
    root = fs::path(where).parent_path();
    if (root.empty())
      root = ".";
  } else {
    std::string top = where.substr(0, where.find('.'));
    if (fs::is_directory(top)) {
      root = top;
      recursive = true;
    } else if (fs::exists(top + ".py")) {
      return stat_stamp(top + ".py");
    } else {
      return ""; // an installed package: only the target text keys it
    }
  }
  std::string newest;
  std::error_code ec;
  auto consider = [&](const fs::directory_entry& entry) {
    if (entry.path().extension() == ".py") {
      std::string stamp = entry.path().string() + "@" + stat_stamp(entry.path().string());
      newest += stamp + ";";
    }
  };
  int budget = 5000; // large trees: stop looking rather than stall
  if (recursive) {
    for (fs::recursive_directory_iterator it(root, ec), end; it != end && budget-- > 0;
         it.increment(ec))
      consider(*it);
  } else {
    for (fs::directory_iterator it(root, ec), end; it != end && budget-- > 0; it.increment(ec))
      consider(*it);
  }
  return hash_text(newest);
}

// The export cache keeps one archive per export mode: a graph-mode archive has no eager
// record and an eager-mode archive has no program (its export skips torch.export).
std::string cached_export(const std::string& target, const Settings& settings, bool& from_cache) {
  from_cache = false;
  std::string dir = ensure_cache_subdir("exports");
  // The record's edition: an archive made before the helper recorded a fact opscope now reads
  // (2: the experts' decorator arguments, module_names.py) is made again.
  std::string key_text = fs::current_path().string() + "\n" + target + "\n" +
                         python_interpreter(settings) + "\n" + python_source_stamp(target) +
                         "\nrecord 2";
  for (const auto& spec : settings.inputs)
    key_text += "\n--input " + spec;
  // Weightless is the default; the spelling of the key's line predates that.
  key_text += settings.weightless ? "\n--weightless" : "\n--with-weights";
  if (!settings.hf_class.empty())
    key_text += "\n--hf-class " + settings.hf_class;
  auto archive_for = [&](index::Mode mode) {
    return dir + "/" + hash_text(key_text + "\n--mode " + index::to_string(mode)) + ".pt2";
  };
  std::string archive = archive_for(settings.mode);
  from_cache = true;
  if (settings.use_cache && fs::exists(archive))
    return archive;
  from_cache = false;
  progress(settings, "exporting " + target + " with " + python_interpreter(settings) + " ...");
  std::string temporary = temporary_name(archive);
  export_archive(target, settings, temporary, {settings.mode});
  publish(temporary, archive);
  return archive;
}

// Each cache entry has its content hash next to it (ENTRY.hash), written with it: an entry
// edited or cut short since is found by hashing (milliseconds), not by parsing it (seconds on
// a large model), so `opscope index` can keep copying entries without reading them.
void record_checksum(const std::string& entry) {
  write_text(entry + ".hash", inspect::content_hash_of_file(entry));
}

// Whether a cache entry is what the worker wrote. One without a recorded hash (from an older
// opscope) is checked the slow way once, then gets one. A damaged entry is deleted.
bool entry_intact(const std::string& entry) {
  std::string recorded = read_cached_hash(entry + ".hash");
  bool intact = false;
  std::string why = "it changed since it was written";
  try {
    if (recorded.empty()) {
      index::load_index(entry);
      record_checksum(entry);
      intact = true;
    } else {
      intact = recorded == inspect::content_hash_of_file(entry);
    }
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!intact) {
    warn("the cached index " + entry + " is damaged (" + why + "); deleting it and rebuilding it");
    std::error_code ec;
    fs::remove(entry, ec);
    fs::remove(entry + ".hash", ec);
  }
  return intact;
}

std::string cached_index_for_archive(const std::string& archive, const Settings& settings) {
  const std::string mode = index::to_string(settings.mode);
  const std::string worker = worker_path();
  const std::string worker_stamp = hash_text(worker + "@" + stat_stamp(worker));
  const std::string version = std::to_string(index::kIndexFormatVersion);
  const std::string absolute = fs::absolute(archive).lexically_normal().string();

  // Cheap key first (path, size, mtime); the content hash only when that is unknown.
  std::string quick_dir = ensure_cache_subdir("quick");
  std::string index_dir = ensure_cache_subdir("index");
  std::string quick_file = quick_dir + "/" +
                           hash_text(absolute + "\n" + stat_stamp(archive) + "\n" + mode + "\n" +
                                     worker_stamp + "\n" + version);
  auto index_file_for = [&](const std::string& content_hash) {
    return index_dir + "/" + content_hash + "-" + worker_stamp + "-v" + version + "-" + mode +
           ".json";
  };
  if (settings.use_cache) {
    std::string hash = read_cached_hash(quick_file);
    if (!hash.empty() && fs::exists(index_file_for(hash)) && entry_intact(index_file_for(hash)))
      return index_file_for(hash);
  }
  std::string content_hash;
  try {
    content_hash = inspect::content_hash_of_file(archive);
  } catch (const std::exception& e) {
    throw ModelError(e.what());
  }
  std::string index_file = index_file_for(content_hash);
  if (!settings.use_cache || !fs::exists(index_file) || !entry_intact(index_file)) {
    progress(settings, "inspecting " + archive + " (" + mode + " mode) ...");
    std::string temporary = temporary_name(index_file);
    ProcessResult run = run_process({worker, archive, "--mode", mode, "-o", temporary});
    if (!run.started)
      throw ModelError(worker + ": cannot run the inspection worker (" + run.start_error +
                       "); rebuild it with `cmake --build build --target opscope-inspect`");
    if (run.signal != 0) {
      std::error_code ec;
      fs::remove(temporary, ec);
      std::string said = last_line(run.stderr_text);
      throw ModelError(archive + ": the inspection worker (opscope-inspect) crashed with " +
                       describe_signal(run.signal) +
                       " while reading it; check that the archive comes from "
                       "torch.export.save and re-export it" +
                       (said.empty() ? "" : " (last message: " + said + ")"));
    }
    if (run.exit_code != 0) {
      std::error_code ec;
      fs::remove(temporary, ec);
      std::string said = last_line(run.stderr_text);
      throw ModelError(said.empty() ? archive + ": the inspection worker failed (exit code " +
                                          std::to_string(run.exit_code) + ") without a message"
                                    : said);
    }
    publish(temporary, index_file);
    record_checksum(index_file);
  }
  write_text(quick_file, content_hash);
  return index_file;
}

} // namespace

std::string worker_path() {
  if (const char* explicit_path = std::getenv("OPSCOPE_INSPECT"); explicit_path && *explicit_path)
    return explicit_path;
  std::string beside = executable_dir() + "/opscope-inspect";
  if (is_executable_file(beside))
    return beside;
  throw ModelError("opscope-inspect (the LibTorch inspection worker) was not found next to " +
                   executable_dir() +
                   "/opscope; build it with `cmake --build build --target opscope-inspect` "
                   "(configure with -DCMAKE_PREFIX_PATH=\"$(python -c 'import torch; "
                   "print(torch.utils.cmake_prefix_path)')\"), or set OPSCOPE_INSPECT to its "
                   "path");
}

std::string weights_worker_path() {
  if (const char* explicit_path = std::getenv("OPSCOPE_WEIGHTS"); explicit_path && *explicit_path)
    return explicit_path;
  std::string beside = executable_dir() + "/opscope-weights";
  return is_executable_file(beside) ? beside : std::string();
}

std::string python_helpers_dir() {
  if (const char* env = std::getenv("OPSCOPE_PYTHON_HELPERS"); env && *env)
    return env;
  const std::string installed = executable_dir() + "/../share/opscope/python";
  const std::string build_tree = executable_dir() + "/share/opscope/python";
  if (!fs::exists(installed + "/opscope_export/__main__.py") &&
      fs::exists(build_tree + "/opscope_export/__main__.py"))
    return build_tree;
  return installed; // when neither holds it, export_archive names this one
}

std::string python_interpreter(const Settings& settings) {
  if (!settings.python.empty())
    return settings.python;
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv) {
    std::string candidate = std::string(venv) + "/bin/python";
    if (is_executable_file(candidate))
      return candidate;
  }
  return "python3";
}

ModelKind classify(const std::string& model) {
  struct stat st {};
  if (::stat(model.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw ModelError(model + ": is a folder; " + kModelKinds);
    if (auto problem = support::regular_file_problem(model))
      throw ModelError(model + ": " + *problem + "; " + kModelKinds);
    if (::access(model.c_str(), R_OK) != 0)
      throw ModelError(model + ": cannot read it (" + std::strerror(errno) + ")");
    if (auto kind = kind_of_file(model))
      return *kind;
    throw ModelError(model + ": neither a torch.export archive (.pt2) nor an opscope index file; " +
                     kModelKinds);
  }
  if (looks_like_python_target(model)) {
    std::string where = model.substr(0, model.rfind(':'));
    bool is_path = where.ends_with(".py") || where.find('/') != std::string::npos;
    if (is_path && !fs::exists(where))
      throw ModelError(where + ": no such file (in the Python target " + model + ")");
    return ModelKind::PythonTarget;
  }
  if (model.ends_with(".py"))
    throw ModelError(model + ": a Python file needs the factory to call: " + model +
                     ":build (a function or class returning the nn.Module)");
  throw ModelError(model + ": no such file; " + kModelKinds);
}

std::string index_path(const std::string& model, const Settings& settings) {
  switch (classify(model)) {
  case ModelKind::IndexFile:
    return model;
  case ModelKind::Archive:
    return cached_index_for_archive(model, settings);
  case ModelKind::PythonTarget: {
    bool from_cache = false;
    std::string archive = cached_export(model, settings, from_cache);
    try {
      return cached_index_for_archive(archive, settings);
    } catch (const ModelError& e) {
      if (!from_cache)
        throw;
      // A damaged cached export (cut short by a full disk, edited by hand): rebuild it once.
      warn("the cached export " + archive + " cannot be inspected (" + e.what() +
           "); deleting it and exporting again");
      std::error_code ec;
      fs::remove(archive, ec);
      return cached_index_for_archive(cached_export(model, settings, from_cache), settings);
    }
  }
  }
  return model;
}

index::Index load_index(const std::string& model, const Settings& settings) {
  ModelKind kind = classify(model);
  std::string path = index_path(model, settings);
  index::Index loaded;
  try {
    loaded = index::load_index(path);
  } catch (const index::IndexFormatError& e) {
    if (kind == ModelKind::IndexFile)
      throw ModelError(e.what());
    // Our own cache entry, damaged (cut short, edited, from a faulty build): it is only a
    // cache, so delete it and build it again instead of failing at every start.
    warn("the cached index " + path + " is damaged (" + std::string(e.what()) +
         "); deleting it and rebuilding it");
    std::error_code ec;
    fs::remove(path, ec);
    fs::remove(path + ".hash", ec);
    path = index_path(model, settings);
    try {
      loaded = index::load_index(path);
    } catch (const index::IndexFormatError& again) {
      throw ModelError(again.what());
    }
  }
  if (kind == ModelKind::IndexFile && settings.mode_given && loaded.mode != settings.mode)
    throw ModelError(model + ": is a " + index::to_string(loaded.mode) + "-mode index, not " +
                     index::to_string(settings.mode) +
                     "; make one with `opscope index MODEL.pt2 --mode " +
                     index::to_string(settings.mode) + " -o FILE`");
  return loaded;
}

std::vector<std::string> schema_dump_command(const std::string& python, const std::string& output) {
  return {python, python_helpers_dir() + "/opscope_export", "schema", "-o", output};
}

std::string export_archive(const std::string& target, const Settings& settings,
                           const std::string& output, const std::vector<index::Mode>& modes) {
  std::string helper = python_helpers_dir() + "/opscope_export";
  if (!fs::exists(helper + "/__main__.py"))
    throw ModelError(helper + ": the export helper is missing; set OPSCOPE_PYTHON_HELPERS to the "
                              "folder that holds opscope_export (opscope's python/ folder)");
  std::string python = python_interpreter(settings);
  std::vector<std::string> argv = {python, helper, target};
  for (const auto& spec : settings.inputs) {
    argv.push_back("--input");
    argv.push_back(spec);
  }
  // The helper's default is graph mode alone; eager alone skips torch.export.
  if (std::find(modes.begin(), modes.end(), index::Mode::Eager) != modes.end()) {
    for (index::Mode mode : modes)
      argv.insert(argv.end(), {"--mode", index::to_string(mode)});
  }
  if (!settings.weightless) // the helper's default is weightless too
    argv.push_back("--with-weights");
  if (!settings.hf_class.empty())
    argv.insert(argv.end(), {"--hf-class", settings.hf_class});
  argv.push_back("-o");
  argv.push_back(output);
  const FileIdentity before = identity_of(output);
  ProcessResult run = run_process(argv);
  if (!run.started)
    throw ModelError(python + ": cannot run Python (" + run.start_error +
                     "); pass --python PATH or activate the virtualenv that has torch");
  if (run.signal != 0) {
    // torch's archive writer aborts when a write fails: name the likely cause first.
    if (auto full = full_disk_problem(output))
      throw ModelError("exporting " + target + ": " + *full + " (Python stopped with " +
                       describe_signal(run.signal) + ")");
    throw ModelError("exporting " + target + ": Python crashed with " +
                     describe_signal(run.signal));
  }
  if (run.exit_code != 0) {
    std::string said = last_line(run.stderr_text);
    const std::string prefix = "opscope-export: error: ";
    if (said.rfind(prefix, 0) == 0)
      said = said.substr(prefix.size());
    if (said.empty())
      said = "the export helper failed (exit code " + std::to_string(run.exit_code) + ")";
    throw ModelError("exporting " + target + ": " + said);
  }
  // Exit 0 is not enough: model code that calls os._exit(0) or sys.exit(0) ends the helper
  // "successfully" before it writes anything (and an older archive may still be there).
  FileIdentity after = identity_of(output);
  if (!after.exists || after == before)
    throw ModelError("exporting " + target +
                     ": the export helper exited (code 0) without "
                     "writing " +
                     output +
                     "; does the model code call sys.exit() or os._exit() "
                     "when it is imported or built?");
  relay_helper_warnings(run.stderr_text);
  return last_line(run.stdout_text);
}

} // namespace opscope::model
