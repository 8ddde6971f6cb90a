// A JSON string literal written straight into a buffer, as nlohmann's dump() writes it with
// ensure_ascii off: UTF-8 kept, '"' '\\' and control characters escaped; bytes that are not
// valid UTF-8 become U+FFFD, so the output is always valid JSON.
#pragma once

#include <string>
#include <string_view>

namespace opscope::json {

// Appends `text` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view text);

} // namespace opscope::json
