#include "opscope/inspect/content_hash.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <sys/stat.h>
#include <vector>

namespace opscope::inspect {
namespace {

constexpr std::uint64_t kOffset = 1469598103934665603ULL;
constexpr std::uint64_t kPrime = 1099511628211ULL;
constexpr std::size_t kChunk = 1 << 20;

std::uint64_t fnv(std::uint64_t hash, const unsigned char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= kPrime;
  }
  return hash;
}

// FNV-1a over four interleaved byte lanes (independent multiply chains run
// several times faster), per 1 MiB chunk; lanes and length folded at the end.
// Identical to the front end's cache key (engine/model/src/file_hash.cpp).
class Hasher {
public:
  void update_chunk(const unsigned char* data, std::size_t size) {
    total_ += size;
    // Lanes in locals: `data` may alias the members, which would make the
    // compiler store and reload every lane on every byte.
    std::uint64_t a = lanes_[0], b = lanes_[1], c = lanes_[2], d = lanes_[3];
    std::size_t i = 0;
    for (; i + 4 <= size; i += 4) {
      a = (a ^ data[i]) * kPrime;
      b = (b ^ data[i + 1]) * kPrime;
      c = (c ^ data[i + 2]) * kPrime;
      d = (d ^ data[i + 3]) * kPrime;
    }
    lanes_[0] = fnv(a, data + i, size - i);
    lanes_[1] = b;
    lanes_[2] = c;
    lanes_[3] = d;
  }

  std::string hex() const {
    std::uint64_t hash = kOffset;
    for (auto lane : lanes_)
      hash = fnv(hash, reinterpret_cast<const unsigned char*>(&lane), sizeof lane);
    hash = fnv(hash, reinterpret_cast<const unsigned char*>(&total_), sizeof total_);
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
  }

private:
  std::uint64_t lanes_[4] = {kOffset, kOffset ^ 1, kOffset ^ 2, kOffset ^ 3};
  std::uint64_t total_ = 0;
};

} // namespace

std::string content_hash_of_bytes(const void* data, std::size_t size) {
  Hasher hasher;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t offset = 0; offset < size; offset += kChunk)
    hasher.update_chunk(bytes + offset, std::min(kChunk, size - offset));
  return hasher.hex();
}

std::string content_hash_of_file(const std::string& path) {
  // A FIFO or device would block or never end: only regular files are hashed.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw std::runtime_error(path + ": is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot be read");
  std::vector<char> buffer(kChunk);
  Hasher hasher;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0)
      break;
    hasher.update_chunk(reinterpret_cast<const unsigned char*>(buffer.data()), got);
  }
  if (in.bad())
    throw std::runtime_error(path + ": read error");
  return hasher.hex();
}

} // namespace opscope::inspect
