#include "free_memory.h"

#include <cstdlib> // before the test of __GLIBC__, which the C library's headers define
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace opscope::lsp {

void MemoryReturn::now() {
#if defined(__GLIBC__)
  malloc_trim(0); // every arena: the background thread allocates from its own
#endif
  last_ = std::chrono::steady_clock::now();
}

void MemoryReturn::if_due() {
  if (std::chrono::steady_clock::now() - last_ >= kInterval)
    now();
}

} // namespace opscope::lsp
