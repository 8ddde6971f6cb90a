#include "opscope/project/project.h"

#include "opscope/project/hf_cache.h"

#include "opscope/support/regular_file.h"

#include "opscope/index/serialize.h"

#include "opscope/config/tree.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

namespace opscope::project {
namespace fs = std::filesystem;

namespace {

std::string trim(std::string text) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
  text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
  return text;
}

std::string absolute_in(const std::string& base, const std::string& path) {
  fs::path p(path);
  if (!path.empty() && path[0] == '~') {
    if (const char* home = std::getenv("HOME"))
      p = fs::path(home) / path.substr(path.size() > 1 && path[1] == '/' ? 2 : 1);
  }
  if (p.is_relative())
    p = fs::path(base) / p;
  return p.lexically_normal().string();
}

// The interpreter when neither the editor, the command line nor the project names one: the
// virtualenv the user activated (as `opscope export` picks it; the user's environment, never
// the repository's), then the nearest .venv above the project, then python3 on PATH.
std::string default_python(const std::string& dir) {
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv) {
    fs::path candidate = fs::path(venv) / "bin" / "python";
    std::error_code ec;
    if (fs::exists(candidate, ec))
      return candidate.lexically_normal().string();
  }
  for (fs::path d = dir; !d.empty(); d = d.parent_path()) {
    fs::path candidate = d / ".venv" / "bin" / "python";
    std::error_code ec;
    if (fs::exists(candidate, ec))
      return candidate.string();
    if (d == d.root_path())
      break;
  }
  return "python3";
}

} // namespace

ModelSettings ModelSettings::overridden_by(const ModelSettings& over) const {
  ModelSettings out = *this;
  if (over.model)
    out.model = over.model;
  if (over.inputs)
    out.inputs = over.inputs;
  if (over.python)
    out.python = over.python;
  if (over.mode)
    out.mode = over.mode;
  if (over.compressor)
    out.compressor = over.compressor;
  if (over.weightless)
    out.weightless = over.weightless;
  if (over.hf_class)
    out.hf_class = over.hf_class;
  if (over.weights)
    out.weights = over.weights;
  return out;
}

ModelSettings settings_from_json(const nlohmann::json& j) {
  ModelSettings s;
  if (!j.is_object())
    return s;
  auto text = [&](const char* key) -> std::optional<std::string> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string() || trim(it->get<std::string>()).empty())
      return std::nullopt;
    return trim(it->get<std::string>());
  };
  s.model = text("model");
  s.python = text("python");
  s.mode = text("mode");
  s.compressor = text("compressor");
  s.hf_class = text("hfClass");
  s.weights = text("weights");
  if (auto it = j.find("weightless"); it != j.end() && it->is_boolean())
    s.weightless = it->get<bool>();
  if (auto it = j.find("inputs"); it != j.end() && it->is_array() && !it->empty()) {
    std::vector<std::string> inputs;
    for (const auto& v : *it)
      if (v.is_string())
        inputs.push_back(v.get<std::string>());
    s.inputs = inputs;
  }
  return s;
}

std::optional<std::string> find_project_file(const std::string& dir) {
  std::error_code ec;
  fs::path d = fs::absolute(dir, ec).lexically_normal();
  while (true) {
    fs::path candidate = d / kProjectFileName;
    if (fs::is_regular_file(candidate, ec))
      return candidate.string();
    if (d == d.root_path() || d.empty())
      return std::nullopt;
    d = d.parent_path();
  }
}

namespace {

// A value written through an alias (`model: *m`) is the anchored one.
const config::Node* deref(const config::Node* node) {
  return node && node->kind == config::Node::Kind::Alias ? node->target : node;
}

int line_of(const config::Range& range) {
  return range.start.line + 1;
}

} // namespace

// Read with core/config's tolerant YAML scanner, so quoting, comments, flow lists and anchors
// mean what they mean to PyYAML and the editor's YAML extension; what the scanner reads but the
// project file does not take (nesting, lists outside `inputs`) is a problem on its line.
ProjectFile parse_project_file(const std::string& text, const std::string& path) {
  ProjectFile project;
  project.path = path;
  project.dir = fs::path(path).parent_path().string();
  auto problem = [&](int line, const std::string& message) {
    project.problems.push_back(path + ":" + std::to_string(line) + ": " + message);
  };
  config::Tree tree = config::scan_tree(text, config::Format::Yaml);
  for (const config::SyntaxProblem& syntax : tree.problems)
    problem(line_of(syntax.range), syntax.message);
  const config::Node* root = tree.root.get();
  if (root && root->kind != config::Node::Kind::Map && root->kind != config::Node::Kind::Null)
    problem(line_of(root->range), root->kind == config::Node::Kind::Seq
                                      ? "unexpected list item; only `inputs` takes a list"
                                      : "expected `key: value`");
  if (!root || root->kind != config::Node::Kind::Map)
    return project;
  // One value, written as a scalar; a nested value is the problem the old line reader named.
  auto scalar = [&](const config::Node* value, int line,
                    const std::string& key) -> std::optional<std::string> {
    value = deref(value);
    if (!value || value->kind == config::Node::Kind::Null ||
        (value->kind == config::Node::Kind::Scalar && trim(value->scalar).empty())) {
      problem(line, "`" + key + "` has no value");
      return std::nullopt;
    }
    if (value->kind == config::Node::Kind::Map) {
      problem(line_of(value->range),
              "unexpected indented line; opscope.yaml has only top-level keys");
      return std::nullopt;
    }
    if (value->kind == config::Node::Kind::Seq) {
      problem(line_of(value->range), "unexpected list item; only `inputs` takes a list");
      return std::nullopt;
    }
    return trim(value->scalar);
  };
  for (const config::Entry& entry : root->entries) {
    if (!entry.has_colon)
      continue; // the scanner reported the missing ':'
    const std::string& key = entry.key;
    const int line = line_of(entry.key_range);
    const config::Node* value = deref(entry.value.get());
    if (key == "inputs") {
      std::vector<std::string> inputs;
      if (value && value->kind == config::Node::Kind::Seq) {
        for (const auto& item : value->items)
          if (auto text = scalar(item.get(), line_of(item->range), "inputs"))
            inputs.push_back(*text);
      } else if (value && value->kind != config::Node::Kind::Null) {
        if (auto text = scalar(value, line, key))
          inputs.push_back(*text);
      }
      project.settings.inputs = inputs;
      continue;
    }
    if (key == "weightless") {
      if (auto flag = scalar(value, line, key)) {
        if (*flag == "true" || *flag == "false")
          project.settings.weightless = *flag == "true";
        else
          problem(line, "`weightless` is `" + *flag + "`; use true or false");
      }
      continue;
    }
    std::optional<std::string>* field = key == "model"        ? &project.settings.model
                                        : key == "python"     ? &project.settings.python
                                        : key == "mode"       ? &project.settings.mode
                                        : key == "compressor" ? &project.settings.compressor
                                        : key == "hf_class"   ? &project.settings.hf_class
                                        : key == "weights"    ? &project.settings.weights
                                                              : nullptr;
    if (!field) {
      problem(line, "unknown key `" + key +
                        "` (expected model, inputs, python, mode, compressor, weightless, "
                        "hf_class, weights)");
      continue;
    }
    if (auto text = scalar(value, line, key))
      *field = *text;
  }
  if (project.settings.mode && !index::parse_mode(*project.settings.mode)) {
    project.problems.push_back(path + ": mode `" + *project.settings.mode +
                               "` is not graph or eager; using graph");
    project.settings.mode.reset();
  }
  if (project.settings.compressor && !index::parse_compressor(*project.settings.compressor)) {
    project.problems.push_back(path + ": compressor `" + *project.settings.compressor +
                               "` is not " + coreai::compressor_names());
    project.settings.compressor.reset();
  }
  return project;
}

ProjectFile read_project_file(const std::string& path) {
  constexpr std::uint64_t kMaxProjectFileBytes = 16 << 20; // a few lines in practice
  std::string text;
  try {
    // A FIFO or device named opscope.yaml must not block the server: regular files only.
    text = support::read_regular_file(path, kMaxProjectFileBytes);
  } catch (const support::FileReadError& e) {
    ProjectFile project;
    project.path = path;
    project.dir = fs::path(path).parent_path().string();
    project.problems.push_back(e.what());
    return project;
  }
  return parse_project_file(text, path);
}

std::string ModelSpec::key() const {
  std::string key = std::to_string(static_cast<int>(kind)) + "|" + path + "|" + target + "|" +
                    index::to_string(mode) + "|" + python + "|" + work_dir + "|" +
                    (weightless ? "weightless" : "") + "|" + hf_class;
  for (const auto& input : inputs)
    key += "|" + input;
  return key;
}

Resolution resolve_model(const std::string& config_path, const ConfigHints& hints,
                         const ModelSettings& editor, const std::string& editor_base_dir,
                         ProjectFileCache* project_files) {
  Resolution out;
  std::string config_dir = fs::path(config_path).parent_path().string();
  ModelSettings project_settings;
  std::string base_dir = editor_base_dir.empty() ? config_dir : editor_base_dir;
  if (auto file = find_project_file(config_dir)) {
    // Runs on every editor request; the project file seldom changes.
    ProjectFile project =
        project_files ? project_files->get(*file, read_project_file) : read_project_file(*file);
    out.project_file = *file;
    out.project_problems = project.problems;
    project_settings = project.settings;
    out.project_settings = project.settings;
  }
  ModelSettings settings = project_settings.overridden_by(editor);

  // Compressor: editor setting, else the config's root key, else the project file.
  if (editor.compressor || hints.compressor == index::Compressor::None) {
    if (auto parsed = index::parse_compressor(
            editor.compressor.value_or(project_settings.compressor.value_or(""))))
      out.compressor = *parsed;
  } else {
    out.compressor = hints.compressor;
  }

  if (!settings.model && hints.model) {
    // The config's own base model: a cached Hugging Face id, or a local model folder.
    std::string local = absolute_in(config_dir, *hints.model);
    std::error_code ec;
    if (fs::is_regular_file(fs::path(local) / "config.json", ec)) {
      settings.model = "hf:" + (fs::path(local) / "config.json").string();
    } else if (auto cached = hf_cached_config(*hints.model)) {
      settings.model = "hf:" + *cached;
    } else {
      out.problem = "`" + *hints.model + "`, the base model this config names, is not in the " +
                    "local Hugging Face cache (" + hf_hub_cache() +
                    "): fetch its config.json (`hf download " + *hints.model +
                    " config.json`; opscope never downloads), or name the model in an " +
                    "opscope.yaml next to this config (`model: hf:path/to/config.json`)";
      return out;
    }
    out.model_from_config = true;
  }
  if (!settings.model) {
    out.problem = out.project_file.empty()
                      ? std::string("no model: create an opscope.yaml next to this config (or in "
                                    "a parent folder) with `model: path/to/model.pt2`, or set "
                                    "the editor setting opscope.model")
                      : out.project_file + " does not name a model: add `model: model.pt2` (an "
                                           "archive, an index file or a Python target)";
    return out;
  }
  bool from_editor = editor.model.has_value();
  std::string model_base = from_editor ? base_dir
                           : out.model_from_config
                               ? config_dir
                               : fs::path(out.project_file).parent_path().string();
  ModelSpec spec;
  spec.written = out.model_from_config ? "hf:" + *hints.model : *settings.model;
  spec.origin = from_editor             ? "editor settings"
                : out.model_from_config ? config_path
                                        : out.project_file;
  // Classified where it is: a relative path is the project's (or editor folder's).
  spec.kind = model::model_kind(absolute_in(model_base, *settings.model));
  spec.work_dir =
      out.project_file.empty() ? base_dir : fs::path(out.project_file).parent_path().string();
  if (spec.kind == ModelKind::PythonTarget) {
    std::size_t colon = settings.model->rfind(':');
    std::string file_part = settings.model->substr(0, colon);
    std::string factory = settings.model->substr(colon + 1);
    bool is_file = file_part.size() > 3 && file_part.compare(file_part.size() - 3, 3, ".py") == 0;
    const std::string hf_prefix = "hf:";
    if (settings.model->starts_with(hf_prefix)) {
      // hf:CONFIG: a config.json or its folder, relative to the project; else a model id
      // in the local Hugging Face cache (ORG/NAME), passed on as written.
      std::string where = settings.model->substr(hf_prefix.size());
      std::string local = absolute_in(model_base, where);
      std::error_code ec;
      if (fs::exists(local, ec) || where.ends_with(".json") || where.starts_with(".")) {
        spec.target = hf_prefix + local;
        spec.path =
            fs::is_directory(local, ec) ? (fs::path(local) / "config.json").string() : local;
      } else {
        spec.target = *settings.model;
      }
    } else if (is_file) {
      spec.path = absolute_in(model_base, file_part);
      spec.target = spec.path + ":" + factory;
    } else {
      spec.target = *settings.model;
      // package.module -> package/module.py (or its __init__.py), for watching.
      std::string relative = file_part;
      std::replace(relative.begin(), relative.end(), '.', '/');
      std::error_code ec;
      for (std::string candidate : {relative + ".py", relative + "/__init__.py"})
        if (fs::is_regular_file(fs::path(spec.work_dir) / candidate, ec)) {
          spec.path = absolute_in(spec.work_dir, candidate);
          break;
        }
    }
    spec.inputs = settings.inputs.value_or(std::vector<std::string>{});
    spec.weightless = settings.weightless.value_or(true);
    spec.hf_class = settings.hf_class.value_or("");
    // Each path is relative to where it was written: the editor's folder or the project's.
    std::string python_base =
        editor.python ? base_dir : fs::path(out.project_file).parent_path().string();
    spec.python = settings.python ? absolute_in(python_base, *settings.python)
                                  : default_python(spec.work_dir);
    if (settings.python && settings.python->find('/') == std::string::npos)
      spec.python = *settings.python; // a command name such as python3, found on PATH
  } else {
    spec.path = absolute_in(model_base, *settings.model);
  }
  // Real weights: where `weights:` points (relative to where it was written), else beside an
  // hf: model's config.json (a save_pretrained folder, or the cached snapshot of a model id).
  if (settings.weights) {
    spec.weights =
        absolute_in(editor.weights ? base_dir : fs::path(out.project_file).parent_path().string(),
                    *settings.weights);
  } else if (spec.kind == ModelKind::PythonTarget && spec.target.starts_with("hf:")) {
    std::optional<std::string> config =
        spec.path.empty() ? hf_cached_config(spec.target.substr(3)) : spec.path;
    if (config)
      spec.weights = fs::path(*config).parent_path().string();
  }
  // Mode: editor setting, else the config's execution_mode, else the project file. A
  // compressor with no graph mode always runs eager: coreai-opt 0.4.0's KMeansPalettizer and
  // MagnitudePruner work on the nn.Module (their configs have no execution_mode and
  // ModelInspector refuses them in graph mode), so a project's `mode: graph`, meant for its
  // quantization configs, must not check a palettization config against graph-mode names.
  if (!index::mode_supports(index::Mode::Graph, out.compressor))
    spec.mode = index::Mode::Eager;
  else if (editor.mode)
    spec.mode = index::parse_mode(*editor.mode).value_or(index::Mode::Graph);
  else if (hints.mode)
    spec.mode = *hints.mode;
  else
    spec.mode =
        index::parse_mode(project_settings.mode.value_or("graph")).value_or(index::Mode::Graph);
  out.model = std::move(spec);
  return out;
}

} // namespace opscope::project
