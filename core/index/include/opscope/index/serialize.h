// The index file: versioned JSON, documented in docs/INDEX_FORMAT.md.
#pragma once

#include "opscope/index/index.h"

#include <stdexcept>
#include <string>

namespace opscope::index {

// A file that is not an index, or an index of another format version.
class IndexFormatError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

std::string to_json_text(const Index& index);
// Throws IndexFormatError naming `origin` (a path, for the message).
Index from_json_text(const std::string& text, const std::string& origin);

void save_index(const Index& index, const std::string& path);
Index load_index(const std::string& path);

// True when the file starts like an index file (cheap sniff, no full parse).
bool looks_like_index_file(const std::string& path);

} // namespace opscope::index
