// Opening a model, index or project file only when it is a regular file: a FIFO blocks the
// reader forever, a device never ends, a directory reads as nothing. Every reader of a file
// the user names goes through here (or checks with regular_file_problem first).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace opscope::support {

// `what()` is one line: "PATH: is a named pipe (FIFO), not a regular file; ...".
class FileReadError : public std::runtime_error {
public:
  // NotRegular: a FIFO, device, socket or directory; Unreadable: missing, no permission, I/O.
  enum class Kind { NotRegular, Unreadable, TooLarge };
  FileReadError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

private:
  Kind kind_;
};

// A read-only descriptor of a regular file, opened without blocking (O_NONBLOCK, then fstat),
// so a FIFO is refused instead of waiting for a writer. Closes on destruction.
class RegularFile {
public:
  explicit RegularFile(const std::string& path); // throws FileReadError
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  int fd() const { return fd_; }
  std::uint64_t size() const { return size_; }
  // Hands the descriptor to the caller (who closes it).
  int release();

private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// Why `path` cannot be read as a regular file ("is a directory, not a file"), or nothing.
// Follows symbolic links. A missing file is a problem too ("no such file").
std::optional<std::string> regular_file_problem(const std::string& path);

// The whole file, refusing non-regular files and files larger than `max_bytes`.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes);

} // namespace opscope::support
