// Completion inside a config: real module names, module types, op names and op
// types where a pattern key is typed; config field names and values elsewhere.
#pragma once

#include "opscope/config/context.h"
#include "opscope/features/model.h"

#include <string>
#include <vector>

namespace opscope::features {

struct CompletionItem {
  enum class Kind { Module, ModuleType, Op, OpType, Field, Value };
  Kind kind = Kind::Module;
  std::string label;         // the plain name ("layer1.0.conv1")
  std::string filter_text;   // what the editor filters on: the key as written, not closed
  std::string detail;        // module type, op type + module, occurrence count, ...
  std::string sort_text;     // keeps model order
  TextEdit edit;             // replaces the whole key being typed (opened quote included)
  std::string documentation; // markdown (coreai-opt's own docs for schema items); may be empty
};

struct CompletionList {
  // True when items were capped or the model is not loaded yet: the editor must
  // ask again as the user types.
  bool is_incomplete = false;
  std::vector<CompletionItem> items;
};

struct CompletionOptions {
  std::size_t max_items = 200;
};

// `model` may be null (not loaded yet): field names still complete; pattern
// keys return an empty, incomplete list.
CompletionList complete(const config::ConfigDocument& document, config::Position cursor,
                        const Model* model, const CompletionOptions& options = {});

} // namespace opscope::features
