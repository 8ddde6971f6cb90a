// Where a model comes from, turned into an Index without loading LibTorch here:
// an index file is read directly; a .pt2 archive goes through the `opscope-inspect`
// worker (cached by archive content and mode); a Python target (`model.py:build`,
// `pkg.mod:build`) is first exported with the user's Python (cached by target, inputs and
// source time). Synchronous; errors are ModelError with a complete one-line message.
#pragma once

#include "opscope/index/index.h"
#include "opscope/model/model_kind.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace opscope::model {

// A user error: the message names the file and says what to do.
class ModelError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct Settings {
  index::Mode mode = index::Mode::Graph;
  bool mode_given = false;         // --mode was given (an index file of another mode is an error)
  std::vector<std::string> inputs; // --input specs, for Python targets
  std::string python;              // interpreter; empty: $VIRTUAL_ENV/bin/python, else python3
  bool quiet = false;              // no progress lines on stderr
  // Receives each phase ("exporting T with P ...", "inspecting A (graph mode) ...") instead of
  // stderr: the CLI's progress line on a terminal. Not called when quiet.
  std::function<void(const std::string& phase)> on_progress;
  bool use_cache = true;
  // Build the model on fake tensors (no data): an archive without weight data, same names
  // (the helper falls back to a real export, with a warning, when the model needs data).
  // The default; false (--with-weights) builds real weights. hf:CONFIG targets are always
  // weightless (the helper refuses --with-weights for them).
  bool weightless = true;
  std::string hf_class; // for hf:CONFIG targets: the transformers class (--hf-class)
};

// model_kind's rule (model_kind.h) for a model that must be usable now: throws ModelError
// for a missing file, a directory, or a file that is neither kind.
ModelKind classify(const std::string& model);

// The model's index (running the export helper and the worker as needed).
index::Index load_index(const std::string& model, const Settings& settings);

// Path of an index file for the model: the file itself, or the cache entry.
std::string index_path(const std::string& model, const Settings& settings);

// Runs the export helper: TARGET -> archive at `output` serving `modes` (settings.mode is not
// read). Graph: the plain torch.export archive, which `--mode eager` refuses; Eager: only the
// record of one eager run (no torch.export); both: one archive with the program and the
// record. Returns the helper's JSON line.
std::string export_archive(const std::string& target, const Settings& settings,
                           const std::string& output, const std::vector<index::Mode>& modes);

// The command that dumps the coreai-opt schema of `python` (the export helper's `schema`) into
// `output`. It runs the project's interpreter: only with the consent its model's export needs.
std::vector<std::string> schema_dump_command(const std::string& python, const std::string& output);

// Both found relative to this executable (no build or source path is compiled in), so an
// installed tree works wherever it is moved.
// The inspection worker: $OPSCOPE_INSPECT, else next to this executable (installed in bin/,
// built at the top of the build tree).
std::string worker_path();
// The weight-error worker (it links LibTorch): $OPSCOPE_WEIGHTS, else `opscope-weights` next to
// this executable; "" when there is none (a build without LibTorch).
std::string weights_worker_path();
// The folder holding `opscope_export`: $OPSCOPE_PYTHON_HELPERS, else share/opscope/python
// beside this executable's folder (installed: bin/../share) or inside it (the build tree,
// where it links to the source's python/).
std::string python_helpers_dir();
// --python, else $VIRTUAL_ENV/bin/python, else python3.
std::string python_interpreter(const Settings& settings);

} // namespace opscope::model
