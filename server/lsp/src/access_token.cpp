#include "access_token.h"

#include "opscope/support/cache_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opscope::lsp {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

} // namespace

std::optional<std::string> ensure_private_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    if (!dir.parent_path().empty() && dir.parent_path() != dir)
      if (auto problem = ensure_private_dir(dir.parent_path()))
        return problem;
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      return "cannot create the folder " + dir.string() + ": " + errno_text();
    return std::nullopt;
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return "cannot read " + dir.string() + ": " + errno_text();
  if (!S_ISDIR(st.st_mode))
    return dir.string() + " is not a folder";
  if (st.st_uid != ::geteuid() && st.st_uid != 0)
    return dir.string() + " belongs to another user";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    return dir.string() + " is writable by other users";
  return std::nullopt;
}

std::string make_access_token() {
  unsigned char bytes[32];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      std::abort(); // no kernel randomness: never fall back to a guessable token
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char byte : bytes) {
    token += kHex[byte >> 4];
    token += kHex[byte & 15];
  }
  return token;
}

std::string default_token_path(int port) {
  std::string name = "lsp-" + std::to_string(port) + ".token";
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
    return std::string(runtime) + "/opscope/" + name;
  return support::cache_dir() + "/run/" + name;
}

std::optional<std::string> write_token_file(const std::string& path, std::string_view token) {
  std::filesystem::path file(path);
  if (file.has_parent_path())
    if (auto problem = ensure_private_dir(file.parent_path()))
      return "cannot write the token file " + path + ": " + *problem +
             "; choose another --token-file";
  // A new file, never one someone else prepared (O_EXCL, no symlink followed).
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return "cannot replace the token file " + path + ": " + errno_text();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return "cannot create the token file " + path + ": " + errno_text();
  std::string line = std::string(token) + "\n";
  bool ok = ::fchmod(fd, 0600) == 0 &&
            ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  std::string problem = ok ? "" : errno_text();
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    return "cannot write the token file " + path + ": " + problem;
  }
  return std::nullopt;
}

bool tokens_equal(std::string_view a, std::string_view b) {
  unsigned char difference = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i)
    difference |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return difference == 0;
}

} // namespace opscope::lsp
