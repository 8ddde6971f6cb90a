// A 64-bit content hash of a file, as 16 lowercase hex digits: the worker records
// it as the index's provenance.archive_hash and the front end (engine/model) caches
// indexes by it, both through this one function.
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
