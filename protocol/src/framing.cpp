#include "opscope/protocol/framing.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace opscope::protocol {
namespace {

constexpr std::string_view kLengthHeader = "content-length";

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

// Position of the next "Content-Length" (any case) at or after `from`.
std::size_t find_length_header(std::string_view text, std::size_t from) {
  for (std::size_t i = from; i + kLengthHeader.size() <= text.size(); ++i) {
    if ((text[i] == 'C' || text[i] == 'c') &&
        iequals(text.substr(i, kLengthHeader.size()), kLengthHeader))
      return i;
  }
  return std::string_view::npos;
}

bool is_complete_json(std::string_view text) {
  text = trim(text);
  return !text.empty() && nlohmann::json::accept(text);
}

enum class Match { Yes, No, NeedMore };

// Whether a real length header starts at `at`: "Content-Length", a colon,
// digits, and a raw line break. Valid JSON holds no raw line break inside a
// string and no bare word outside one, so no message body can fake this.
Match real_length_header_at(std::string_view text, std::size_t at) {
  std::size_t i = at + kLengthHeader.size();
  auto blanks = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
      ++i;
  };
  blanks();
  if (i == text.size())
    return Match::NeedMore;
  if (text[i++] != ':')
    return Match::No;
  blanks();
  std::size_t digits = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    ++i;
  if (i == text.size())
    return Match::NeedMore;
  if (i == digits)
    return Match::No;
  blanks();
  if (i == text.size())
    return Match::NeedMore;
  return text[i] == '\r' || text[i] == '\n' ? Match::Yes : Match::No;
}

enum class HeaderStart { Header, Garbage, NeedMore };

// Whether the text starts like a header line ("Name: value"), so that the tail
// of a body sent with a too short Content-Length is skipped, not read as headers.
HeaderStart header_start(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '-'))
    ++i;
  if (i == text.size())
    return i > 256 ? HeaderStart::Garbage : HeaderStart::NeedMore;
  if (i == 0)
    return HeaderStart::Garbage;
  while (i < text.size() && text[i] == ' ')
    ++i;
  if (i == text.size())
    return HeaderStart::NeedMore;
  return text[i] == ':' ? HeaderStart::Header : HeaderStart::Garbage;
}

} // namespace

void FrameDecoder::feed(std::string_view bytes) {
  buffer_.append(bytes);
  decode();
}

std::optional<FrameEvent> FrameDecoder::next() {
  if (ready_.empty())
    return std::nullopt;
  FrameEvent event = std::move(ready_.front());
  ready_.pop_front();
  return event;
}

void FrameDecoder::decode() {
  while (true) {
    if (skipping_oversized_ && !skip_to_real_header())
      return;
    if (!(body_length_ ? decode_body() : decode_header()))
      return;
  }
}

// Drops the bytes of an oversized message up to the next real header; false
// while that header has not arrived yet.
bool FrameDecoder::skip_to_real_header() {
  constexpr std::size_t kLongestHeaderLine = 256; // spaces and digits included
  for (std::size_t at = find_length_header(buffer_, 0); at != std::string::npos;
       at = find_length_header(buffer_, at + 1)) {
    Match match = real_length_header_at(buffer_, at);
    if (match == Match::Yes ||
        (match == Match::NeedMore && buffer_.size() - at <= kLongestHeaderLine)) {
      buffer_.erase(0, at);
      skipping_oversized_ = match == Match::NeedMore;
      return !skipping_oversized_;
    }
  }
  resync(buffer_.size()); // keeps only a tail that may begin a header
  return false;
}

// Drops bytes up to the next "Content-Length" header at or after `from` (or
// everything, keeping a tail that might be the start of one).
void FrameDecoder::resync(std::size_t from) {
  std::size_t next = find_length_header(buffer_, from);
  if (next != std::string::npos) {
    buffer_.erase(0, next);
    return;
  }
  // Keep only a tail that could be the start of a header split across reads.
  std::size_t keep = std::min(buffer_.size(), kLengthHeader.size() - 1);
  while (keep > 0 && !iequals(std::string_view(buffer_).substr(buffer_.size() - keep),
                              kLengthHeader.substr(0, keep)))
    --keep;
  buffer_.erase(0, buffer_.size() - keep);
}

bool FrameDecoder::decode_header() {
  // Blank lines between messages are harmless.
  std::size_t skip = 0;
  while (skip < buffer_.size() && (buffer_[skip] == '\r' || buffer_[skip] == '\n'))
    ++skip;
  buffer_.erase(0, skip);
  if (buffer_.empty())
    return false;
  switch (header_start(buffer_)) {
  case HeaderStart::NeedMore:
    return false;
  case HeaderStart::Garbage:
    ready_.push_back(FramingError{"expected a \"Content-Length: N\" header"});
    resync(1);
    return true;
  case HeaderStart::Header:
    break;
  }
  std::size_t end = buffer_.find("\r\n\r\n");
  std::size_t separator = 4;
  if (end == std::string::npos) {
    // Tolerate bare "\n\n" from hand-written clients.
    end = buffer_.find("\n\n");
    separator = 2;
  }
  if (end == std::string::npos) {
    if (buffer_.size() > 64 * 1024) { // no header is this long: it is garbage
      ready_.push_back(FramingError{"message header too long or missing its blank line"});
      resync(1);
      return true;
    }
    return false;
  }
  std::string_view headers(buffer_.data(), end);
  std::optional<std::size_t> length;
  std::string problem;
  while (!headers.empty()) {
    std::size_t eol = headers.find('\n');
    std::string_view line = trim(headers.substr(0, eol));
    headers = eol == std::string_view::npos ? std::string_view() : headers.substr(eol + 1);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      problem = "malformed header line \"" + std::string(line.substr(0, 80)) + "\"";
      continue;
    }
    if (!iequals(trim(line.substr(0, colon)), kLengthHeader))
      continue; // Content-Type and other headers are allowed and ignored
    std::string_view value = trim(line.substr(colon + 1));
    std::size_t parsed = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (ec != std::errc() || ptr != value.data() + value.size() || value.empty())
      problem = "invalid Content-Length \"" + std::string(value.substr(0, 40)) + "\"";
    else
      length = parsed;
  }
  if (!length) {
    ready_.push_back(FramingError{problem.empty() ? "missing Content-Length header" : problem});
    resync(end + separator);
    return true;
  }
  buffer_.erase(0, end + separator);
  if (*length > max_body_) {
    ready_.push_back(FramingError{"message of " + std::to_string(*length) +
                                  " bytes exceeds the limit of " + std::to_string(max_body_) +
                                  "; skipped up to the next Content-Length header"});
    skipping_oversized_ = true;
    return true;
  }
  body_length_ = length;
  scanned_ = 0;
  completeness_checks_ = 0;
  return true;
}

bool FrameDecoder::decode_body() {
  if (buffer_.size() >= *body_length_) {
    ready_.push_back(Frame{buffer_.substr(0, *body_length_)});
    buffer_.erase(0, *body_length_);
    body_length_.reset();
    return true;
  }
  // A Content-Length larger than the body: when the next message's header has
  // already arrived and what precedes it is a complete JSON value, frame that.
  std::size_t from = scanned_ > kLengthHeader.size() ? scanned_ - kLengthHeader.size() : 0;
  std::size_t next = find_length_header(buffer_, from);
  scanned_ = buffer_.size();
  // Each check reads the body so far: a few per body, or a stream of fake
  // headers would make the work quadratic.
  constexpr int kMaxChecksPerBody = 8;
  while (next != std::string::npos && completeness_checks_ < kMaxChecksPerBody) {
    Match header = real_length_header_at(buffer_, next);
    if (header == Match::NeedMore) {
      scanned_ = next + kLengthHeader.size(); // look here again when more arrives
      break;
    }
    if (header == Match::No) {
      next = find_length_header(buffer_, next + 1);
      continue;
    }
    ++completeness_checks_;
    if (is_complete_json(std::string_view(buffer_).substr(0, next))) {
      ready_.push_back(Frame{buffer_.substr(0, next)});
      buffer_.erase(0, next);
      body_length_.reset();
      return true;
    }
    next = find_length_header(buffer_, next + 1);
  }
  return false;
}

void FrameDecoder::flush_stalled() {
  if (skipping_oversized_)
    return; // reported already; waiting for the next header is all there is to do
  if (body_length_ && is_complete_json(buffer_)) {
    ready_.push_back(Frame{std::move(buffer_)});
    buffer_.clear();
    body_length_.reset();
  } else if (!body_length_ && !buffer_.empty() && find_length_header(buffer_, 0) != 0) {
    ready_.push_back(FramingError{"expected a \"Content-Length: N\" header"});
    resync(1);
  }
  decode();
}

std::string frame_message(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

} // namespace opscope::protocol
