// A streaming JSON writer for the index file: appends to a buffer and hands full chunks to
// an output stream, so a big index is never held twice (the old DOM + dump did).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace opscope::index {

class JsonWriter {
public:
  // With `sink`, the buffer is written out whenever it grows past a chunk; without, the
  // whole document accumulates in `buffer`.
  explicit JsonWriter(std::string& buffer, std::ostream* sink = nullptr);

  // Punctuation and keys the caller spells out ("{\"name\":"): no escaping.
  void raw(std::string_view text) { buffer_.append(text); }
  void raw(char c) { buffer_.push_back(c); }
  // A JSON string as nlohmann's dump() writes it: UTF-8 kept, controls escaped; bytes that
  // are not valid UTF-8 become U+FFFD so the file stays valid JSON.
  void string(std::string_view text);
  void integer(long long value);
  // Lets the sink take the buffer once it is big enough; call between records.
  void checkpoint() {
    if (sink_ && buffer_.size() >= kChunk)
      flush();
  }
  // Writes out whatever is buffered (no-op without a sink).
  void flush();

private:
  static constexpr std::size_t kChunk = 1 << 16;
  std::string& buffer_;
  std::ostream* sink_;
};

} // namespace opscope::index
