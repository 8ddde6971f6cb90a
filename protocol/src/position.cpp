#include "opscope/protocol/position.h"

#include "opscope/support/utf8.h"

#include <algorithm>
#include <cstring>

namespace opscope::protocol {
namespace {

std::size_t line_end(std::string_view text, std::size_t start) {
  std::size_t brk = text.find_first_of("\r\n", start);
  return brk == std::string_view::npos ? text.size() : brk;
}

std::size_t units_of(char32_t code_point, std::size_t bytes, PositionEncoding encoding) {
  switch (encoding) {
  case PositionEncoding::Utf8:
    return bytes;
  case PositionEncoding::Utf16:
    return support::utf16_units(code_point);
  case PositionEncoding::Utf32:
    return 1;
  }
  return 1;
}

} // namespace

const char* to_string(PositionEncoding encoding) {
  switch (encoding) {
  case PositionEncoding::Utf8:
    return "utf-8";
  case PositionEncoding::Utf16:
    return "utf-16";
  case PositionEncoding::Utf32:
    return "utf-32";
  }
  return "utf-16";
}

PositionEncoding negotiate_position_encoding(const std::vector<std::string>& offered) {
  for (const auto& name : offered)
    if (name == "utf-8")
      return PositionEncoding::Utf8;
  return PositionEncoding::Utf16;
}

// Line breaks are "\n", "\r\n" and "\r", as LSP defines them.
LineTable::LineTable(std::string_view text) : text_(text) {
  starts_.push_back(0);
  // Built for every request: without a lone or paired '\r', memchr finds the breaks.
  if (text.empty())
    return;
  if (std::memchr(text.data(), '\r', text.size()) == nullptr) {
    const char* begin = text.data();
    const char* end = begin + text.size();
    for (const char* p = begin; (p = static_cast<const char*>(std::memchr(p, '\n', end - p)));)
      starts_.push_back(static_cast<std::size_t>(++p - begin));
    return;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
      ++i;
    if (text[i] == '\n' || text[i] == '\r')
      starts_.push_back(i + 1);
  }
}

void LineTable::edited(std::size_t begin, std::size_t end, std::size_t inserted,
                       std::string_view text) {
  text_ = text;
  // A start is decided by the byte before it and the byte at it: those before `begin` stay,
  // those after the old `end` stay moved, and the ones in between are read from the new bytes.
  auto first = std::lower_bound(starts_.begin() + 1, starts_.end(), begin);
  auto last = std::upper_bound(first, starts_.end(), end);
  std::vector<std::size_t> found;
  for (std::size_t at = std::max<std::size_t>(begin, 1); at <= begin + inserted; ++at) {
    char before = text[at - 1];
    if (before == '\n' || (before == '\r' && (at == text.size() || text[at] != '\n')))
      found.push_back(at);
  }
  for (auto moved = last; moved != starts_.end(); ++moved)
    *moved = *moved - end + begin + inserted;
  std::size_t at = static_cast<std::size_t>(first - starts_.begin());
  starts_.erase(first, last);
  starts_.insert(starts_.begin() + static_cast<std::ptrdiff_t>(at), found.begin(), found.end());
}

std::string_view LineTable::line(int line) const {
  if (line < 0 || line >= line_count())
    return {};
  std::size_t start = starts_[line];
  return text_.substr(start, line_end(text_, start) - start);
}

std::size_t LineTable::offset_at(Position position, PositionEncoding encoding) const {
  if (position.line < 0)
    return 0;
  if (position.line >= line_count())
    return text_.size();
  std::size_t start = starts_[position.line];
  std::size_t end = line_end(text_, start);
  std::size_t offset = start;
  std::size_t units = 0;
  std::size_t wanted = position.character < 0 ? 0 : static_cast<std::size_t>(position.character);
  while (offset < end && units < wanted) {
    support::DecodedChar c = support::decode_utf8(text_, offset);
    units += units_of(c.code_point, c.length, encoding);
    offset += c.length;
  }
  return std::min(offset, end);
}

Position LineTable::position_at(std::size_t offset, PositionEncoding encoding) const {
  offset = std::min(offset, text_.size());
  auto next = std::upper_bound(starts_.begin(), starts_.end(), offset);
  int line = static_cast<int>(next - starts_.begin()) - 1;
  std::size_t start = starts_[line];
  std::size_t end = std::min(line_end(text_, start), offset);
  std::size_t units = 0;
  for (std::size_t i = start; i < end;) {
    support::DecodedChar c = support::decode_utf8(text_, i);
    if (i + c.length > end)
      break;
    units += units_of(c.code_point, c.length, encoding);
    i += c.length;
  }
  return {line, static_cast<int>(units)};
}

std::size_t offset_at(std::string_view text, Position position, PositionEncoding encoding) {
  return LineTable(text).offset_at(position, encoding);
}

Position position_at(std::string_view text, std::size_t offset, PositionEncoding encoding) {
  return LineTable(text).position_at(offset, encoding);
}

} // namespace opscope::protocol
