// What the config features know about the model: the index, and the
// compressor and mode the config is checked against. Plain structs shared by
// completion, hover, diagnostics and definition; no LSP types.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/dialects/answers.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"
#include "opscope/resolve/resolve.h"
#include "opscope/resolve/weight_error_report.h"

#include <memory>
#include <string>

namespace opscope::features {

using dialects::SourceLocation;
using dialects::TextEdit;

// The per-layer weight error (resolve/weight_error_report.h) a host measured for a config: the
// editor measures it in the background, so a request may come before it or between two
// measurements.
struct WeightErrorState {
  std::shared_ptr<const resolve::WeightErrorReport> report; // the last measured; null before it
  bool current = false;   // `report` is of this revision (its rows' deciders name its keys)
  bool measuring = false; // a measurement of this revision is under way
};

struct Model {
  const index::Index* index = nullptr; // must outlive every call that receives it
  // Which compressor's registered ops count (None: every op). Callers usually
  // take it from the project settings or the config's root key.
  index::Compressor compressor = index::Compressor::None;
  // Lookups over `index`, built once when it was loaded (null: each call builds its own).
  const index::QueryEngine* queries = nullptr;
  // Which entry decides each op (resolve::resolves), computed once per (config version,
  // model) and shared by the check and hovers (null: each call resolves on its own).
  const resolve::SharedResolution* resolution = nullptr;
  // The config's weight error on the model's weights (null: the host does not measure it).
  const WeightErrorState* weight_error = nullptr;
};

} // namespace opscope::features
