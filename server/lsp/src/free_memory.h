// Gives the memory the allocator keeps after large frees back to the system. glibc keeps the
// pages a closed config's parse and compiled patterns freed as its own heap: a server that had
// opened and closed twelve 20,000-key configs stayed at 428 MB resident without this. Called on
// the background thread after what was freed (a closed config, released models), not on a
// timer on the io thread (every 2 s until issue 23): on a heap of the size a 50,000-key config
// makes (~400,000 blocks, half of them free) one malloc_trim took ~40 ms, which a completion
// arriving meanwhile waited for.
#pragma once

namespace opscope::lsp {

void return_free_memory();

} // namespace opscope::lsp
