// A 64-bit content hash of a file, as 16 lowercase hex digits. The CLI caches
// indexes by it, so it must stay stable across releases: change it only
// together with the cache layout. No LibTorch (target opscope_content_hash).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace opscope::inspect {

// FNV-1a-style mixing over 8-byte little-endian words (the tail byte-wise),
// seeded with the length. Throws std::runtime_error if the file cannot be read.
std::string content_hash_of_file(const std::string& path);

// The same hash over a buffer (for tests and in-memory data).
std::string content_hash_of_bytes(const void* data, std::size_t size);

} // namespace opscope::inspect
