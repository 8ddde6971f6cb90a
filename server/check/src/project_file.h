// The project file `opscope.yaml` as `opscope check` needs it: a flat mapping of
// model, inputs, python, mode, compressor. (The language server reads the same
// file in server/lsp/src/project.*; the two should share one reader.)
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opscope::check {

struct ProjectFile {
  std::string path;
  std::string dir;
  std::optional<std::string> model;
  std::vector<std::string> inputs;
  std::optional<std::string> python;
  std::optional<std::string> mode;
  std::optional<std::string> compressor;
};

// The nearest opscope.yaml in `dir` or one of its ancestors.
std::optional<ProjectFile> find_project(const std::string& dir);

ProjectFile parse_project(const std::string& text, const std::string& path);

} // namespace opscope::check
