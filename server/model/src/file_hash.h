// Cheap, stable hashing for cache keys (not for security).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace opscope::model {

// 64-bit FNV-1a, as 16 hex digits.
std::string hash_text(std::string_view text);
// Hash of a file's bytes; throws std::runtime_error if it cannot be read.
std::string hash_file(const std::string& path);

} // namespace opscope::model
