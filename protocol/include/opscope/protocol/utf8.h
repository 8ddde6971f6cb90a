// JSON libraries reject invalid UTF-8, and editors send whatever bytes a file holds: every
// byte that does not start a well-formed sequence becomes U+FFFD (core/support decodes).
#pragma once

#include <string>
#include <string_view>

namespace opscope::protocol {

bool is_valid_utf8(std::string_view text);
// Replaces each invalid byte with U+FFFD so JSON libraries accept the text.
std::string sanitize_utf8(std::string_view text);

} // namespace opscope::protocol
