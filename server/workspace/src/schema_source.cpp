#include "schema_source.h"

#include "opscope/support/cache_dir.h"
#include "opscope/support/regular_file.h"

#include <filesystem>
#include <map>
#include <mutex>

namespace opscope::workspace {
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

} // namespace

std::optional<std::string> installed_coreai_opt(const std::string& python) {
  if (python.empty())
    return std::nullopt;
  std::error_code ec;
  fs::path venv = fs::path(python).parent_path().parent_path(); // …/bin/python -> …
  fs::path lib = venv / "lib";
  if (!fs::is_directory(lib, ec))
    return std::nullopt;
  for (const fs::directory_entry& py : fs::directory_iterator(lib, ec)) {
    fs::path site = py.path() / "site-packages";
    if (py.path().filename().string().rfind("python", 0) != 0 || !fs::is_directory(site, ec))
      continue;
    if (std::optional<std::string> version = version_in(site))
      return version;
  }
  return std::nullopt;
}

std::string schema_cache_path(const std::string& version) {
  return (fs::path(support::cache_dir()) / "schema" / ("coreai-opt-" + version + ".json")).string();
}

SchemaChoice choose_schema(const project::Resolution& resolution) {
  std::shared_ptr<const schema::Schema> builtin = schema::builtin();
  if (!resolution.model)
    return {builtin, std::nullopt};
  std::optional<std::string> version = installed_coreai_opt(resolution.model->python);
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

std::shared_ptr<const schema::Schema> schema_for(const project::Resolution& resolution) {
  return choose_schema(resolution).schema;
}

} // namespace opscope::workspace
