// coreai-opt's Python reader (python_reader.cpp): a training script's config calls as the tree
// of a config document, and the marks it leaves for the classifier and core/dialects/coreai/schema.
#pragma once

#include "opscope/config/scanner.h"
#include "opscope/coreai/config/document.h"

#include <utility>
#include <vector>

namespace opscope::config::detail {

// A Python file's config calls as the tree of a config document: a root mapping with one
// `quantization_config` (etc.) entry per config class call or setter call, whose keys are
// the class names or setters as written (python_reader.cpp).
struct PythonRead {
  Tree tree;
  std::vector<UncheckedName> unchecked;
  std::vector<std::pair<int, int>> config_lines;
};
PythonRead scan_python(const SourceText& source);

// A module config written apart from any top config (`cfg = ModuleQuantizerConfig(...)`, used
// later through the variable): read as a global_config, without being one.
inline constexpr const char* kDetachedModuleConfig = "\x1f"
                                                     "detached_module_config";

// A spec, granularity or op config built on its own (`w = QuantizationSpec(...)`): a root
// entry without a colon, which classification passes over, for core/dialects/coreai/schema to check
// the call.
inline constexpr const char* kDetachedValue = "\x1f"
                                              "detached_value";

} // namespace opscope::config::detail
