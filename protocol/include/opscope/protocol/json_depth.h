// Nesting depth of JSON text, measured without building a DOM. nlohmann's
// parser is iterative, but copying, comparing and dumping a value recurse once
// per level: a message nested 100,000 deep overflows the stack in whatever
// touches it first. Messages are measured before they are parsed and refused
// beyond kMaxJsonNesting.
#pragma once

#include <cstddef>
#include <string_view>

namespace opscope::protocol {

// Far deeper than any LSP message (initialize's capabilities reach ~6 levels),
// far shallower than what overflows a 8 MB stack in recursive code.
inline constexpr std::size_t kMaxJsonNesting = 512;

// The deepest nesting of arrays and objects in `text`, counting brackets
// outside string literals. Linear, constant memory; meant for valid or
// nearly valid JSON (unbalanced brackets just give some depth).
std::size_t json_nesting_depth(std::string_view text);

} // namespace opscope::protocol
