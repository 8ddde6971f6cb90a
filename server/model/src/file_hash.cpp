#include "file_hash.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace opscope::model {
namespace {

constexpr std::uint64_t kOffset = 1469598103934665603ULL;
constexpr std::uint64_t kPrime = 1099511628211ULL;

std::uint64_t fnv(std::uint64_t hash, const char* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= kPrime;
  }
  return hash;
}

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

} // namespace

std::string hash_text(std::string_view text) {
  return hex(fnv(kOffset, text.data(), text.size()));
}

std::string hash_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot read the file");
  // Four interleaved lanes keep the multiply chains independent (several times faster).
  std::uint64_t lanes[4] = {kOffset, kOffset ^ 1, kOffset ^ 2, kOffset ^ 3};
  std::vector<char> buffer(1 << 20);
  std::uint64_t total = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    size_t got = static_cast<size_t>(in.gcount());
    total += got;
    size_t i = 0;
    for (; i + 4 <= got; i += 4)
      for (int lane = 0; lane < 4; ++lane) {
        lanes[lane] ^= static_cast<unsigned char>(buffer[i + lane]);
        lanes[lane] *= kPrime;
      }
    lanes[0] = fnv(lanes[0], buffer.data() + i, got - i);
  }
  std::uint64_t hash = kOffset;
  for (auto lane : lanes)
    hash = fnv(hash, reinterpret_cast<const char*>(&lane), sizeof lane);
  hash = fnv(hash, reinterpret_cast<const char*>(&total), sizeof total);
  return hex(hash);
}

} // namespace opscope::model
