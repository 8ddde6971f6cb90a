#include "file_hash.h"

#include <cstdio>

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

} // namespace opscope::model
