#include "free_memory.h"

#include <cstdlib> // before the test of __GLIBC__, which the C library's headers define
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace opscope::lsp {

void return_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0); // every arena: the background checks allocate from their own
#endif
}

} // namespace opscope::lsp
