// Re-reading a config after an edit that stays inside one pattern key. Typing a key in a
// 50,000-key config changed one line, but a full read of its 3 MB took ~0.1 s per
// keystroke; such an edit changes only that key's text and the columns after it on its line,
// so the previous read is patched instead. Anything the patch cannot prove unchanged (a
// quote, an escape, a colon, a line break, a problem or a second key on the line) gives
// nullopt, and the caller reads the whole text. In a Python file, the patch is for the
// opposite case: an edit in code that holds no config call keeps the read (python_edit.cpp).
#pragma once

#include "opscope/coreai/config/document.h"

#include <optional>
#include <string>

namespace opscope::config {

// `previous` is read_config's result for the text before the edit; `text` the text after it.
// Returns what read_config(text, previous.format) returns, or nullopt when the edit is not
// provably local to one pattern key.
std::optional<ConfigDocument> reread_after_local_edit(const ConfigDocument& previous,
                                                      const std::string& text);

// The same, patching `document` in place (its owner need not copy 50,000 keys per keystroke);
// false, and `document` unchanged, when the whole text must be read again.
bool patch_after_local_edit(ConfigDocument& document, const std::string& text);

} // namespace opscope::config
