// Keeping a Python file's read across an edit that cannot change it (python_edit.cpp).
#pragma once

#include "opscope/coreai/config/document.h"

#include <string>

namespace opscope::config::detail {

// `document` is read_config's result (Format::Python) for the text before the edit, `text` the
// text after it. When the edit provably changes nothing the reader found, moves what follows
// the edited lines by the lines added or removed, takes `text` and returns true; otherwise
// returns false and leaves `document` unchanged.
bool python_patch_elsewhere(ConfigDocument& document, const std::string& text);

} // namespace opscope::config::detail
