// LSP base protocol framing: "Content-Length: N\r\n\r\n" + N bytes of JSON.
// The decoder is push-based (feed it whatever bytes arrive, pop whole frames)
// so it works over any byte stream and never blocks. It survives bad input:
// a missing or unreadable Content-Length, extra or oddly-cased headers, a
// length that is too short or too long, and oversized bodies (reported, then
// skipped up to the next real "Content-Length: N" line).
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace opscope::protocol {

// One framed body, ready for parse_message().
struct Frame {
  std::string body;
};
// Bytes that could not be framed; reported (as a parse error with id null),
// then skipped up to the next plausible header.
struct FramingError {
  std::string message;
};
using FrameEvent = std::variant<Frame, FramingError>;

class FrameDecoder {
public:
  static constexpr std::size_t kDefaultMaxBody = 64u << 20; // a 10 MB document fits
  explicit FrameDecoder(std::size_t max_body = kDefaultMaxBody) : max_body_(max_body) {}

  void feed(std::string_view bytes);
  std::optional<FrameEvent> next();

  // Called when input has been idle for a while: a body still waiting for more
  // bytes that already holds a complete JSON value was announced with a too
  // large Content-Length; take what arrived rather than waiting forever.
  void flush_stalled();
  // True while a partial message is buffered (for the idle timer).
  bool has_partial() const { return !buffer_.empty(); }

private:
  void decode();
  bool decode_header();
  bool decode_body();
  void resync(std::size_t from);
  bool skip_to_real_header();

  std::size_t max_body_;
  std::string buffer_;
  std::deque<FrameEvent> ready_;
  std::optional<std::size_t> body_length_; // set while reading a body
  // After a Content-Length over max_body_: bytes are dropped up to the next
  // real header, not counted, so a small body sent with a huge length cannot
  // swallow the messages after it.
  bool skipping_oversized_ = false;
  std::size_t scanned_ = 0;     // body bytes already searched for a next header
  int completeness_checks_ = 0; // of this body, when a next header arrived early
};

// Frames a serialised message for sending.
std::string frame_message(std::string_view body);

} // namespace opscope::protocol
