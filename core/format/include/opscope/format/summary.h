// The model summary tree, character-identical to coreai-opt's
// ModelInspector.format_summary(): legend, module/op tree drawn the way `rich` draws it
// (guides, wrapping at the console width, ANSI styles), and the same content as JSON.
#pragma once

#include "opscope/index/index.h"

#include <nlohmann/json.hpp>

#include <string>

namespace opscope::format {

struct SummaryOptions {
  // Ops not registered by this compressor disappear from the tree; they stay in the
  // connectivity lines of their neighbours and in module boundaries, as in coreai-opt.
  index::Compressor compressor = index::Compressor::None;
  bool color = false; // ANSI styles as rich prints them (format_summary(colorize=True))
  int width = 80;     // console columns: rich wraps each label to the width left after guides
  std::string cwd;    // source paths are shown relative to this; empty = current directory
};

// What coreai-opt prints when there is nothing to show (no legend then).
inline constexpr const char* kNoCompressibleOps = "(no compressible operations found)";

// The legend block coreai-opt prints above every tree.
const std::string& legend();

// format_summary(colorize=options.color), without a trailing newline.
std::string format_summary(const index::Index& index, const SummaryOptions& options = {});

// The same tree as data: {"model_type", "mode", "compressor", "archive", "empty",
// "model": {module with "ops" and nested "children"}}.
nlohmann::json summary_json(const index::Index& index, const SummaryOptions& options = {});

} // namespace opscope::format
