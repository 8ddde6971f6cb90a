#include "opscope/trust/store.h"

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opscope::trust {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kVersion = 1;
// A store this big was not written by opscope; reading it would only cost memory.
constexpr off_t kMaxStoreBytes = 16 << 20;

std::string errno_text() {
  return std::strerror(errno);
}

// What tells a file changed without reading it, for the caches below. The change time cannot
// be set back by a user (unlike the modification time), and a file changed in the last two
// seconds is read again every time: two writes within one timestamp tick would look alike.
// Empty: do not cache.
std::string settled_version(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    return "";
  std::timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  if (now.tv_sec - st.st_ctim.tv_sec < 2)
    return "";
  char text[160];
  std::snprintf(text, sizeof text, "%lu:%lu:%lld:%lld.%ld:%lld.%ld:%o:%u",
                static_cast<unsigned long>(st.st_dev), static_cast<unsigned long>(st.st_ino),
                static_cast<long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec),
                st.st_mtim.tv_nsec, static_cast<long long>(st.st_ctim.tv_sec), st.st_ctim.tv_nsec,
                static_cast<unsigned>(st.st_mode), static_cast<unsigned>(st.st_uid));
  return text;
}

std::string now_utc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Closes a descriptor on every path out.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// The store's JSON, or the reason it cannot be used. A missing file is an empty store.
struct Loaded {
  json trusted = json::object();
  std::string problem;
};

Loaded load(const std::string& file) {
  Loaded out;
  Fd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (fd.fd < 0) {
    if (errno != ENOENT)
      out.problem = file + ": cannot be read (" + errno_text() + "); nothing is trusted";
    return out;
  }
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    out.problem = file + ": not a regular file; nothing is trusted (delete it)";
    return out;
  }
  // Anyone who can write the store can make opscope run their code as this user.
  if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
    out.problem = file +
                  ": owned by another user or writable by others, so it is ignored and "
                  "nothing is trusted; fix with `chmod 600 " +
                  file + "` (as its owner) or delete it";
    return out;
  }
  if (st.st_size > kMaxStoreBytes) {
    out.problem = file + ": larger than 16 MB, not written by opscope; nothing is trusted "
                         "(delete it)";
    return out;
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::read(fd.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("trusted") || !j["trusted"].is_object()) {
    out.problem = file + ": not an opscope trust store (expected {\"version\": 1, \"trusted\": "
                         "{...}}); nothing is trusted (fix or delete it)";
    return out;
  }
  out.trusted = std::move(j["trusted"]);
  return out;
}

void write_atomically(const std::string& file, const json& trusted) {
  fs::path dir = fs::path(file).parent_path();
  std::string temp = (dir / ".trusted.json.XXXXXX").string();
  Fd fd(::mkstemp(temp.data())); // created 0600
  if (fd.fd < 0)
    throw StoreError("cannot write " + file + " (" + errno_text() +
                     "); check that the folder is writable");
  std::string text = json{{"version", kVersion}, {"trusted", trusted}}.dump(2) + "\n";
  std::size_t done = 0;
  bool ok = ::fchmod(fd.fd, 0600) == 0;
  while (ok && done < text.size()) {
    ssize_t n = ::write(fd.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    ok = n > 0;
    if (ok)
      done += static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd.fd) == 0;
  if (!ok || ::rename(temp.c_str(), file.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(temp.c_str());
    throw StoreError("cannot write " + file + " (" + why + ")");
  }
}

// Runs `change` on the store's entries under an exclusive lock (the language server and the
// command line may write at the same time) and writes the result.
template <typename Change> auto update(const std::string& file, Change&& change) {
  fs::path dir = fs::path(file).parent_path();
  std::error_code ec;
  bool existed = fs::exists(dir, ec);
  fs::create_directories(dir, ec);
  if (ec)
    throw StoreError("cannot create " + dir.string() + " (" + ec.message() + ")");
  if (!existed)
    ::chmod(dir.c_str(), 0700);
  std::string lock_path = file + ".lock";
  Fd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (lock.fd < 0 || ::flock(lock.fd, LOCK_EX) != 0)
    throw StoreError("cannot lock " + lock_path + " (" + errno_text() + ")");
  Loaded loaded = load(file);
  if (!loaded.problem.empty())
    throw StoreError(loaded.problem); // never overwrite a store we could not read
  auto result = change(loaded.trusted);
  write_atomically(file, loaded.trusted);
  return result;
}

} // namespace

std::string sha256_hex(std::string_view bytes) {
  // Fetched once: OpenSSL 3 looks the algorithm up again on every EVP_sha256() digest.
  static EVP_MD* sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (!sha256 || EVP_Digest(bytes.data(), bytes.size(), digest, &size, sha256, nullptr) != 1)
    throw StoreError("SHA-256 is not available from OpenSSL");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

std::optional<Subject> project_file_subject(const std::string& path, std::string runs) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, std::string>> digests; // version, sha
  // Taken before reading: a change while reading gives a new version next time.
  std::string version = settled_version(path);
  if (!version.empty()) {
    std::lock_guard lock(mutex);
    auto it = digests.find(path);
    if (it != digests.end() && it->second.first == version)
      return Subject{path, it->second.second, std::move(runs)};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  std::string digest = sha256_hex(buffer.str());
  if (!version.empty()) {
    std::lock_guard lock(mutex);
    if (digests.size() > 1024) // a few project files per session; bounded anyway
      digests.clear();
    digests[path] = {version, digest};
  }
  return Subject{path, std::move(digest), std::move(runs)};
}

Subject editor_settings_subject(const std::string& workspace_dir, const std::string& model,
                                const std::string& python, const std::vector<std::string>& inputs,
                                std::string runs) {
  // nlohmann sorts object keys: the same settings always hash the same.
  json settings = {{"model", model}, {"python", python}, {"inputs", inputs}};
  return Subject{kEditorSettingsPrefix + workspace_dir, sha256_hex(settings.dump()),
                 std::move(runs)};
}

Store::Store(std::string file) : file_(std::move(file)) {}

std::string Store::default_file() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  // XDG: a relative XDG_CONFIG_HOME is invalid and ignored.
  fs::path base = xdg && *xdg == '/' ? fs::path(xdg) : fs::path(home ? home : "/") / ".config";
  return (base / "opscope" / "trusted.json").string();
}

bool Store::trusts(const Subject& subject) const {
  std::string version = settled_version(file_);
  if (version.empty() || version != cached_version_) {
    Loaded loaded = load(file_);
    problem_ = loaded.problem;
    cached_digests_.clear();
    for (const auto& [key, value] : loaded.trusted.items())
      if (value.is_object() && value.contains("sha256") && value["sha256"].is_string())
        cached_digests_[key] = value["sha256"].get<std::string>();
    cached_version_ = version;
  }
  auto it = cached_digests_.find(subject.key);
  return it != cached_digests_.end() && !subject.sha256.empty() && it->second == subject.sha256;
}

std::vector<Entry> Store::entries() const {
  Loaded loaded = load(file_);
  problem_ = loaded.problem;
  if (!loaded.problem.empty())
    throw StoreError(loaded.problem);
  std::vector<Entry> out;
  for (const auto& item : loaded.trusted.items()) {
    const json& value =
        item.value(); // named: lambdas cannot capture structured bindings in clang 14
    if (!value.is_object())
      continue;
    auto text = [&](const char* name) {
      auto it = value.find(name);
      return it != value.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    out.push_back({item.key(), text("sha256"), text("runs"), text("trusted_at")});
  }
  return out;
}

void Store::allow(const Subject& subject) {
  update(file_, [&](json& trusted) {
    trusted[subject.key] = {
        {"sha256", subject.sha256}, {"runs", subject.runs}, {"trusted_at", now_utc()}};
    return true;
  });
}

bool Store::revoke(const std::string& key) {
  return update(file_, [&](json& trusted) { return trusted.erase(key) > 0; });
}

} // namespace opscope::trust
