// opscope's version, from project() in the top CMakeLists.txt: `opscope --version`, the
// language server's serverInfo, and (checked by a test) the VS Code extension's package.json.
#pragma once

namespace opscope::support {

const char* version();

} // namespace opscope::support
