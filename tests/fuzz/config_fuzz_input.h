// Shared body of the config reader fuzzers (config_yaml, config_json, config_python): the input is
// read as a config document of one format, then everything the editor does with a document runs
// over it: cursor contexts at a few fuzzer-chosen offsets, completion, hover, definition and
// diagnostics against a small in-memory model (and without one).
#pragma once

#include "opscope/coreai/config/context.h"
#include "opscope/coreai/config/document.h"
#include "opscope/coreai/config/values.h"
#include "opscope/features/completion.h"
#include "opscope/features/definition.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/hover.h"
#include "opscope/features/schema_completion.h"
#include "opscope/features/schema_diagnostics.h"
#include "opscope/index/query.h"
#include "small_model.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace opscope::fuzz {

// The (line, byte column) of byte `offset` of `text`.
inline config::Position position_of(const std::string& text, std::size_t offset) {
  config::Position p;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.byte_col = 0;
    } else {
      ++p.byte_col;
    }
  }
  return p;
}

inline void run_config_input(const std::uint8_t* data, std::size_t size, config::Format format) {
  static const index::Index resnet = testing::small_resnet();
  static const index::QueryEngine queries(resnet);
  FuzzedDataProvider input(data, size);
  // The cursors come from the input's last bytes, the document is the rest: a seed taken
  // from a real config stays (almost) that config.
  std::size_t cursors[3];
  for (std::size_t& c : cursors)
    c = input.ConsumeIntegral<std::uint16_t>();
  const std::string text = input.ConsumeRemainingBytesAsString();

  config::ConfigDocument doc = config::read_config(text, format);
  (void)config::guess_format("config", text);
  // The values the projected size and explain read, from the parsed tree (aliases expanded).
  (void)config::read_values(doc);
  const features::Model model{&resnet, doc.root, &queries};
  // A cursor anywhere: past the end of a line or of the document too.
  for (std::size_t c : cursors) {
    config::Position at = position_of(text, text.empty() ? 0 : c % (text.size() + 2));
    (void)config::context_at(doc, at);
    (void)features::complete(doc, at, &model);
    (void)features::complete(doc, at, nullptr);
    (void)features::hover(doc, at, &model);
    (void)features::definition(doc, at, model);
    // coreai-opt's models: keys and values completed (the text re-read with a marker) and
    // explained
    (void)features::schema_complete(doc, at, *schema::builtin(), "quantization_config");
    (void)features::schema_hover(doc, at, *schema::builtin());
  }
  (void)features::diagnose(doc, &model);
  (void)features::diagnose(doc, nullptr, features::ModelProblem{"no model", {}});
  // Every key and value against coreai-opt's models, also as a project's quantizer config.
  (void)features::schema_diagnostics(doc, *schema::builtin());
  (void)features::schema_diagnostics(doc, *schema::builtin(), "quantization_config");
}

} // namespace opscope::fuzz
