// How every dialect compiles a `re` pattern the user wrote (PEFT's target_modules string,
// llm-compressor's `re:` entries) with RE2: one place, so two libraries cannot differ on it.
#pragma once

#include <re2/re2.h>

namespace opscope::dialects {

inline RE2::Options python_pattern_options() {
  RE2::Options o;
  o.set_log_errors(false); // a pattern that does not compile is a finding, not a log line
  o.set_max_mem(64 << 20); // a hostile pattern fails to compile instead of growing
  return o;
}

} // namespace opscope::dialects
