// Cheap, stable hashing of cache-key text (not for security). Archive contents are hashed
// by opscope::inspect::content_hash_of_file, the value the worker records in the index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace opscope::model {

// 64-bit FNV-1a, as 16 hex digits.
std::string hash_text(std::string_view text);

} // namespace opscope::model
