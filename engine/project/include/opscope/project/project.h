// Which model a config document belongs to. A project file, `opscope.yaml`,
// is found by walking up from the config's folder:
//
//   model: resnet.pt2            # a .pt2 archive, an index file, or a Python
//                                # target (package.module:factory, file.py:factory);
//                                # paths are relative to this file
//   inputs: ["1x3x224x224"]      # example inputs, for a Python target
//   python: .venv/bin/python     # interpreter for exporting (default: the
//                                # activated $VIRTUAL_ENV, the nearest .venv,
//                                # then python3)
//   mode: graph                  # graph | eager
//   compressor: quantizer        # quantizer | kmeans_palettizer | magnitude_pruner
//   weightless: false            # export the Python target with real (random) weights,
//                                # for models that read tensor values (default true:
//                                # without weight data; hf: targets always are)
//   hf_class: AutoModelForCausalLM  # for `model: hf:./config.json`: the class to build
//   weights: ckpt/                 # where explain reads real weights for the per-layer weight
//                                  # error: a Hugging Face checkpoint's folder or .safetensors
//                                  # file, or a .pt2 archive saved with them (default: the
//                                  # model's archive; for an hf: model, the folder of its
//                                  # config.json, the cached snapshot for a model id)
//
// Editor settings (initializationOptions, workspace/configuration section
// "opscope") override it field by field. The config itself chooses the
// compressor through its root key and the mode through `execution_mode`,
// unless the editor settings fix them.
#pragma once

#include "opscope/dialects/dialect.h"

#include "opscope/index/index.h"
#include "opscope/model/model_kind.h"
#include "opscope/support/file_cache.h"
#include "opscope/support/file_stamp.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opscope::project {

inline constexpr const char* kProjectFileName = "opscope.yaml";

using support::FileStamp;
using support::stamp_of;

// Fields as written; unset ones are absent.
struct ModelSettings {
  std::optional<std::string> model;
  std::optional<std::vector<std::string>> inputs;
  std::optional<std::string> python;
  std::optional<std::string> mode;
  std::optional<std::string> compressor;
  std::optional<bool> weightless;
  std::optional<std::string> hf_class;
  std::optional<std::string> weights;

  // `over`'s set fields win.
  ModelSettings overridden_by(const ModelSettings& over) const;
};

// Reads the "opscope" settings object the editor sends; ignores unknown keys
// and empty strings (an empty setting means "not set").
ModelSettings settings_from_json(const nlohmann::json& j);

struct ProjectFile {
  std::string path;
  std::string dir;
  ModelSettings settings;
  std::vector<std::string> problems; // "opscope.yaml:3: ..." for the log and diagnostics
};

// The nearest opscope.yaml in `dir` or an ancestor, if any.
std::optional<std::string> find_project_file(const std::string& dir);
// Tolerant: a broken line is a problem, the rest still counts.
ProjectFile read_project_file(const std::string& path);
ProjectFile parse_project_file(const std::string& text, const std::string& path);

// What the model names, by model::model_kind's rule (the command line's too).
using model::ModelKind;

// A model to load, fully resolved: the loader's input and the cache key.
struct ModelSpec {
  ModelKind kind = ModelKind::Archive;
  std::string written; // as the project names it, for messages and status
  std::string path;    // absolute archive / index path; for a target, its file if known
  std::string target;  // Python target with an absolute file part (PythonTarget)
  std::vector<std::string> inputs;
  std::string python;
  bool weightless = true; // the default; `weightless: false` exports real weights
  std::string hf_class;
  // Where real weights are read (absolute): `weights:`, else an hf: model's config folder;
  // empty: the model's own archive. Not part of key(): the index does not depend on it.
  std::string weights;
  std::string work_dir; // where to export from (the project's folder)
  index::Mode mode = index::Mode::Graph;
  std::string origin; // "/w/opscope.yaml" or "editor settings"

  std::string key() const; // equal keys share one loaded index
};

// What a config document resolves to.
struct Resolution {
  std::optional<ModelSpec> model;
  index::Compressor compressor = index::Compressor::None;
  std::string project_file;       // empty without one
  ModelSettings project_settings; // as the project file wrote them (what it decides)
  std::string problem;            // why there is no model, with what to do
  std::vector<std::string> project_problems;
  // The model is the one the config itself names (a PEFT config's base model), found in the
  // local Hugging Face cache: neither the project file nor the editor settings name one.
  bool model_from_config = false;
};

// What the config says of its model: its dialect reads it (DialectDocument::model_hints).
using ConfigHints = dialects::ModelHints;

// Project files parsed once per change; the language server keeps one for its session.
using ProjectFileCache = support::FileCache<ProjectFile>;

// `editor_base_dir` resolves relative paths in editor settings (the workspace folder).
// Without `project_files` the project file is read each time (one-shot commands).
Resolution resolve_model(const std::string& config_path, const ConfigHints& hints,
                         const ModelSettings& editor, const std::string& editor_base_dir,
                         ProjectFileCache* project_files = nullptr);

} // namespace opscope::project
