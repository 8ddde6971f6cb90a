// The structural checks every index passes before anything reads it: an index file is user
// input, and the query engine, the summary and hover index into its arrays and walk its module
// tree without further checks. Run by the loaders (serialize.h) and by the fuzzers.
#pragma once

#include "opscope/index/index.h"

#include <optional>
#include <string>

namespace opscope::index {

// Far deeper module nesting than any real model (GPT-style models nest about 6 levels); bounds
// the recursion of everything that walks the tree, and the summary's indentation.
inline constexpr int kMaxModuleDepth = 256;

// What is wrong, in a few words naming the module or op ("module 1 (\"linear1\"): op -1 is
// out of range (12 ops)"), or nothing when every reference is in range, the module tree has
// one root, no cycle and lists each module once, and each op belongs to at most one module.
// Needs the index's lookups built (rebuild_lookups).
std::optional<std::string> find_structure_problem(const Index& index);

} // namespace opscope::index
