// Where opscope keeps what it can rebuild (indexes, exported archives, the language server's
// state): one folder for the command line and the editor, so each reuses what the other built.
#pragma once

#include <string>

namespace opscope::support {

// $XDG_CACHE_HOME/opscope, else $HOME/.cache/opscope, else /tmp/.cache/opscope.
std::string cache_dir();

} // namespace opscope::support
