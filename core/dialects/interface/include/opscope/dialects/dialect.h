// A dialect: everything opscope knows about one library's configs (PEFT, llm-compressor, ...),
// in one folder under core/dialects. The engine (workspace, features, the editor, `check`,
// `explain`) holds a DialectDocument and asks it; it names no library. A dialect registers
// with one line in engine/workspace/src/dialects.cpp.
// Plain structs in config positions (0-based lines, byte columns): no LSP, no LibTorch. The
// engine adds what is the same for every dialect (the model problem, LSP types, limits).
// coreai-opt is not a dialect yet: a file no dialect recognises is read as coreai-opt's.
#pragma once

#include "opscope/config/document.h"
#include "opscope/dialects/answers.h"
#include "opscope/index/index.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::dialects {

struct Replacement {
  std::string title; // "Replace with `v_proj`"
  config::Range range;
  std::string new_text;
};

// One diagnostic. `code` is stable (users and tests filter on it).
struct Finding {
  config::Range range;
  Severity severity = Severity::Warning;
  std::string code;
  std::string message;
  std::vector<Replacement> fixes;
};

struct HoverText {
  config::Range range;
  std::string markdown;
};

// One completion item: a model name to write where a name is being typed.
struct Suggestion {
  std::string label;  // "q_proj" or "model.layers.0.self_attn.q_proj"
  std::string detail; // "×32 Linear"
  std::string sort_text;
  config::Range replace; // the string being typed (its quotes excluded)
};

// One revision of one file, read by its dialect. Immutable: the editor's background check and
// its requests share it (the workspace reads it once per revision).
class DialectDocument {
public:
  virtual ~DialectDocument() = default;

  // Holds no config the dialect can read (a file recognised, but half-typed or empty).
  virtual bool empty() const = 0;
  // The model the config names itself (a Hugging Face id or a path: PEFT's
  // base_model_name_or_path), used when no opscope.yaml or setting names one.
  virtual std::optional<std::string> model() const = 0;

  // What is wrong with the config on `model` (the model problem is the engine's).
  virtual std::vector<Finding> diagnose(const index::Index& model) const = 0;
  virtual std::optional<HoverText> hover(const index::Index& model,
                                         config::Position cursor) const = 0;
  // Names to complete at `cursor`, best first (empty where no name is typed).
  virtual std::vector<Suggestion> complete(const index::Index& model,
                                           config::Position cursor) const = 0;
  // `opscope explain`: what the config does to `model`, as text or JSON on `out`; problems on
  // `err` as "PATH:LINE: error: ...". Returns the exit code (non-zero when the library would
  // raise on this model).
  virtual int explain(const std::string& config_path, const index::Index& model, bool json,
                      std::ostream& out, std::ostream& err) const = 0;
};

class Dialect {
public:
  virtual ~Dialect() = default;
  virtual std::string_view name() const = 0; // "peft"
  // Is the file (its path and text) this library's config? Cheap: asked of every file
  // before coreai-opt's reader (a compressed-tensors checkpoint's root key is coreai-opt's
  // `quantization_config`), so a coreai-opt config must be turned away by a text search.
  virtual bool recognises(const std::string& path, const std::string& text) const = 0;
  // Reads a file recognises() accepted. Never throws: a half-typed file yields what it can.
  virtual std::shared_ptr<const DialectDocument> read(const std::string& path,
                                                      const std::string& text) const = 0;
};

} // namespace opscope::dialects
