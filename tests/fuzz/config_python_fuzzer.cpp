// libFuzzer harness: the Python config reader (tree-sitter's grammar and the walk over its
// tree) and every feature that runs over its document.
#include "config_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  opscope::fuzz::run_config_input(data, size, opscope::config::Format::Python);
  return 0;
}
