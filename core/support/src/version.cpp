#include "opscope/support/version.h"

namespace opscope::support {

const char* version() {
  return OPSCOPE_VERSION;
}

} // namespace opscope::support
