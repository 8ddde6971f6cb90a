// Lenient reads of a simdjson document whose shape is torch's, not ours (the serialized
// ExportedProgram): an absent member or one of another type reads as nothing, an empty string,
// or an empty list, and the caller decides whether that is malformed. Private to core/inspect,
// so that simdjson stays out of the public headers.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string_view>
#include <vector>

namespace opscope::inspect::lenient_json {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

inline std::optional<element> member(element e, std::string_view key) {
  element value;
  if (e[key].get(value))
    return std::nullopt;
  return value;
}

inline bool has(element e, std::string_view key) {
  return !e[key].error();
}

inline std::string_view text_of(element e, std::string_view key) {
  std::string_view text;
  if (e[key].get(text))
    return {};
  return text;
}

inline std::string_view text_of(const std::optional<element>& e, std::string_view key) {
  return e ? text_of(*e, key) : std::string_view();
}

inline std::vector<element> elements_of(element list) {
  std::vector<element> out;
  array items;
  if (list.get(items))
    return out;
  out.reserve(items.size());
  for (element item : items)
    out.push_back(item);
  return out;
}

inline std::vector<element> elements_of(const std::optional<element>& list) {
  return list ? elements_of(*list) : std::vector<element>();
}

} // namespace opscope::inspect::lenient_json
