#include "opscope/project/hf_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace opscope::project {
namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : "";
}

bool is_id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// refs/main holds the snapshot's commit: one line of hex.
std::string main_revision(const fs::path& repo) {
  std::ifstream in(repo / "refs" / "main");
  std::string revision;
  std::getline(in, revision);
  for (char c : revision)
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      return "";
  return revision;
}

} // namespace

std::string hf_hub_cache() {
  if (std::string hub = env("HF_HUB_CACHE"); !hub.empty())
    return hub;
  if (std::string hub = env("HUGGINGFACE_HUB_CACHE"); !hub.empty())
    return hub;
  if (std::string home = env("HF_HOME"); !home.empty())
    return (fs::path(home) / "hub").string();
  std::string xdg = env("XDG_CACHE_HOME");
  fs::path base = !xdg.empty() ? fs::path(xdg) : fs::path(env("HOME")) / ".cache";
  return (base / "huggingface" / "hub").string();
}

bool looks_like_hf_id(const std::string& text) {
  if (text.empty() || text.size() > 200 || text.front() == '.' || text.front() == '-')
    return false;
  int slashes = 0;
  for (char c : text) {
    if (c == '/')
      ++slashes;
    else if (!is_id_char(c))
      return false;
  }
  return slashes <= 1 && text.back() != '/' && text.find("..") == std::string::npos &&
         text.find("/.") == std::string::npos;
}

std::optional<std::string> hf_cached_config(const std::string& id) {
  if (!looks_like_hf_id(id))
    return std::nullopt;
  std::string folder = "models--" + id;
  for (std::size_t at = folder.find('/'); at != std::string::npos; at = folder.find('/'))
    folder.replace(at, 1, "--");
  fs::path repo = fs::path(hf_hub_cache()) / folder;
  std::error_code ec;
  if (std::string revision = main_revision(repo); !revision.empty()) {
    fs::path config = repo / "snapshots" / revision / "config.json";
    if (fs::is_regular_file(config, ec))
      return config.string();
  }
  // No refs/main (a cache filled for another revision): the one snapshot that has a config.
  std::optional<std::string> found;
  for (const auto& entry : fs::directory_iterator(repo / "snapshots", ec)) {
    fs::path config = entry.path() / "config.json";
    if (fs::is_regular_file(config, ec)) {
      if (found)
        return std::nullopt; // several revisions: which one is meant is not known
      found = config.string();
    }
  }
  return found;
}

} // namespace opscope::project
