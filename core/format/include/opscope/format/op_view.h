// How one op reads to a user: its source line (as coreai-opt picks and shows it) and its
// JSON form, shared by the summary, `opscope query` and the language server's hovers.
#pragma once

#include "opscope/index/index.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace opscope::format {

struct SourceLocation {
  std::string path; // relative to the working directory, like Python's os.path.relpath
  int line = 0;
  std::string code; // the source line, stripped; may be empty
  std::string path_line() const { return path + ":" + std::to_string(line); }
};

// The innermost forward() frame that is not PyTorch's own code (coreai-opt skips frames
// under torch/nn/modules/, torch/nn/functional, torch/_). None if there is no such frame.
// `cwd` empty means the current directory.
std::optional<SourceLocation> op_source(const index::Op& op, const std::string& cwd = {});

// posixpath.relpath(path, start) with the working directory = start: lexical, no
// symlinks resolved; a relative `path` is taken relative to `start`.
std::string relative_path(const std::string& path, const std::string& start);

// Display name of a state input: the last dotted component ("linear1.weight" -> "weight").
std::string state_display_name(const std::string& state_name);

// "name[slot]", or just the name for states and untracked tensors.
std::string producer_label(const index::InputEdge& edge);

// {"op_name", "op_type", "module_stack": [{"module_name", "module_type"}], "inputs":
//  [{"position", "producer", "slot", "is_state"}], "outputs": [{"slot", "consumers"}],
//  "states": [display names], "source": {"file", "line", "code"} | null}
nlohmann::json op_json(const index::Op& op, const std::string& cwd = {});

} // namespace opscope::format
