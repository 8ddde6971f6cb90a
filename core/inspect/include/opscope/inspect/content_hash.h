// A 64-bit content hash of a file, as 16 lowercase hex digits: the same value
// the front end caches indexes by (server/model/src/file_hash.cpp), so the
// index's provenance.archive_hash names the cache entry. Keep them in step.
// No LibTorch (target opscope_content_hash).
#pragma once

#include <cstddef>
#include <string>

namespace opscope::inspect {

// Throws std::runtime_error naming the file if it cannot be read.
std::string content_hash_of_file(const std::string& path);

// The same hash over a buffer (read in the same 1 MiB chunks).
std::string content_hash_of_bytes(const void* data, std::size_t size);

} // namespace opscope::inspect
