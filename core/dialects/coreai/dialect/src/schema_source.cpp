#include "schema_source.h"

#include "opscope/support/cache_dir.h"
#include "opscope/support/regular_file.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

namespace opscope::dialects::coreai {
namespace fs = std::filesystem;

namespace {

// The version found in one site-packages folder, listed again only when the folder changes
// (pip install / uninstall): diagnostics ask on every edit.
std::optional<std::string> version_in(const fs::path& site) {
  struct Seen {
    fs::file_time_type mtime;
    std::optional<std::string> version;
  };
  static std::mutex mutex;
  static std::map<std::string, Seen> seen;
  std::error_code ec;
  fs::file_time_type mtime = fs::last_write_time(site, ec);
  if (ec)
    return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = seen.find(site.string()); it != seen.end() && it->second.mtime == mtime)
    return it->second.version;
  std::optional<std::string> version;
  const std::string prefix = "coreai_opt-", suffix = ".dist-info";
  for (const fs::directory_entry& e : fs::directory_iterator(site, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      version = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
      break;
    }
  }
  seen[site.string()] = {mtime, version};
  return version;
}

// `name` on PATH, as a shell finds a command (empty when it is nowhere).
fs::path on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::error_code ec;
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
    if (end > start && fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return {};
}

// The `pythonX.Y` folders under `lib`, or only `wanted` when the interpreter's name says it.
std::vector<std::string> python_versions(const fs::path& lib, const std::string& wanted) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(lib, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("python", 0) == 0 && name.size() > 6 && (wanted.empty() || name == wanted))
      out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

std::vector<fs::path> site_folders(const std::string& python) {
  std::vector<fs::path> out;
  if (python.empty())
    return out;
  fs::path given = python.find('/') == std::string::npos ? on_path(python) : fs::path(python);
  if (given.empty())
    return out;
  std::error_code ec;
  std::vector<fs::path> interpreters{given};
  fs::path real = fs::canonical(given, ec);
  if (!ec && real != given)
    interpreters.push_back(real);
  const char* home = std::getenv("HOME");
  auto add = [&](const fs::path& folder) {
    if (fs::is_directory(folder, ec) && std::find(out.begin(), out.end(), folder) == out.end())
      out.push_back(folder);
  };
  for (const fs::path& interpreter : interpreters) {
    fs::path prefix = interpreter.parent_path().parent_path(); // …/bin/python -> …
    // python3.11 names its version; python3 / python may be any under the prefix.
    std::string name = interpreter.filename().string();
    std::string wanted = name.find('.') != std::string::npos ? name : "";
    if (fs::exists(prefix / "pyvenv.cfg", ec)) { // a venv sees its own packages only
      for (const char* lib : {"lib", "lib64"})
        for (const std::string& v : python_versions(prefix / lib, wanted))
          add(prefix / lib / v / "site-packages");
      return out;
    }
    // Python's own order: the user's site-packages, then the prefix's (Debian's pip installs
    // into /usr/local/lib/pythonX.Y/dist-packages, its packages into /usr/lib/python3/...).
    for (const std::string& v : python_versions(prefix / "lib", wanted)) {
      if (home && *home)
        add(fs::path(home) / ".local" / "lib" / v / "site-packages");
      for (const char* kind : {"site-packages", "dist-packages"}) {
        add(prefix / "lib" / v / kind);
        add(prefix / "lib64" / v / kind);
        add(prefix / "local" / "lib" / v / kind);
      }
    }
    add(prefix / "lib" / "python3" / "dist-packages");
  }
  return out;
}

std::optional<std::string> installed_coreai_opt(const std::string& python) {
  for (const fs::path& site : site_folders(python))
    if (std::optional<std::string> version = version_in(site))
      return version;
  return std::nullopt;
}

std::string schema_cache_path(const std::string& version) {
  return (fs::path(support::cache_dir()) / "schema" / ("coreai-opt-" + version + ".json")).string();
}

SchemaChoice choose_schema(const std::string& python) {
  std::shared_ptr<const schema::Schema> builtin = schema::builtin();
  if (python.empty())
    return {builtin, std::nullopt};
  std::optional<std::string> version = installed_coreai_opt(python);
  if (!version || *version == builtin->coreai_opt_version)
    return {builtin, std::nullopt};
  // One read per version and process: a dump is written once and never changes.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const schema::Schema>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = loaded.find(*version); it != loaded.end())
    return {it->second, std::nullopt};
  // Only a dump read is kept: a version without one looks again (its dump may come later).
  std::shared_ptr<const schema::Schema> found = builtin;
  std::string text;
  try {
    text = support::read_regular_file(schema_cache_path(*version), schema::kMaxDumpBytes);
  } catch (const support::FileReadError&) {
    text.clear(); // no dump for this version (yet), or not a file: the built-in copy serves
  }
  if (!text.empty()) {
    auto parsed = schema::parse(text);
    if (auto* s = std::get_if<std::shared_ptr<const schema::Schema>>(&parsed);
        s && (*s)->coreai_opt_version == *version)
      found = *s;
  }
  if (found == builtin)
    return {builtin, version};
  loaded[*version] = found;
  return {found, std::nullopt};
}

SchemaDump schema_dump(const std::string& python, const std::string& version) {
  SchemaDump dump;
  dump.python = python;
  dump.version = version;
  dump.path = schema_cache_path(version);
  dump.library = "coreai-opt";
  dump.builtin_version = schema::builtin()->coreai_opt_version;
  dump.max_bytes = schema::kMaxDumpBytes;
  dump.why_not_a_dump = [version](const std::string& text) -> std::optional<std::string> {
    auto parsed = schema::parse(text);
    if (auto* why = std::get_if<std::string>(&parsed))
      return "what it wrote is not a schema dump: " + *why;
    const auto& dumped = std::get<std::shared_ptr<const schema::Schema>>(parsed);
    if (dumped->coreai_opt_version != version)
      return "it dumped coreai-opt " + dumped->coreai_opt_version + ", not the " + version +
             " installed beside it";
    return std::nullopt;
  };
  return dump;
}

} // namespace opscope::dialects::coreai
