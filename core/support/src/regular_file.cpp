#include "opscope/support/regular_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opscope::support {
namespace {

std::optional<std::string> kind_problem(mode_t mode) {
  if (S_ISREG(mode))
    return std::nullopt;
  if (S_ISDIR(mode))
    return "is a directory, not a file";
  if (S_ISFIFO(mode))
    return "is a named pipe (FIFO), not a regular file; give the file itself";
  if (S_ISSOCK(mode))
    return "is a socket, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "is a device, not a regular file";
  return "is not a regular file";
}

std::string errno_problem(int error) {
  if (error == ENOENT)
    return "no such file";
  if (error == EACCES || error == EPERM)
    return std::string("cannot be read (permission denied: ") + std::strerror(error) + ")";
  return std::string("cannot be read (") + std::strerror(error) + ")";
}

} // namespace

RegularFile::RegularFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0)
    throw FileReadError(FileReadError::Kind::Unreadable, path + ": " + errno_problem(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    int error = errno;
    ::close(fd_);
    throw FileReadError(FileReadError::Kind::Unreadable, path + ": " + errno_problem(error));
  }
  if (auto problem = kind_problem(st.st_mode)) {
    ::close(fd_);
    throw FileReadError(FileReadError::Kind::NotRegular, path + ": " + *problem);
  }
  // Back to blocking reads: O_NONBLOCK is only for the open.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  size_ = static_cast<std::uint64_t>(st.st_size);
}

RegularFile::~RegularFile() {
  if (fd_ >= 0)
    ::close(fd_);
}

int RegularFile::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

std::optional<std::string> regular_file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return errno_problem(errno);
  return kind_problem(st.st_mode);
}

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes) {
  RegularFile file(path);
  if (file.size() > max_bytes)
    throw FileReadError(FileReadError::Kind::TooLarge,
                        path + ": too large: " + std::to_string(file.size()) + " bytes (limit " +
                            std::to_string(max_bytes) + ")");
  std::string text(static_cast<std::size_t>(file.size()), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t got = ::read(file.fd(), text.data() + done, text.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      throw FileReadError(FileReadError::Kind::Unreadable, path + ": " + errno_problem(errno));
    if (got == 0)
      break; // shrank while reading: keep what is there
    done += static_cast<std::size_t>(got);
  }
  text.resize(done);
  return text;
}

} // namespace opscope::support
