#include "opscope/project/hf_cache.h"
#include "opscope/project/project.h"

#include "opscope/model/model_source.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace opscope::project {
namespace {
namespace fs = std::filesystem;

class ProjectTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("opscope-project-test-" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "configs" / "deep");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  fs::path root_;
};

TEST(ProjectFile, ReadsEveryFieldWithCommentsQuotesAndLists) {
  ProjectFile p = parse_project_file("# project\n"
                                     "model: \"models/resnet.pt2\"  # the archive\n"
                                     "inputs:\n"
                                     "  - 1x3x224x224\n"
                                     "  - 'mask=1x8:int64'\n"
                                     "python: .venv/bin/python\n"
                                     "mode: eager\n"
                                     "compressor: kmeans_palettizer\n",
                                     "/w/opscope.yaml");
  EXPECT_TRUE(p.problems.empty());
  EXPECT_EQ(p.settings.model, "models/resnet.pt2");
  EXPECT_EQ(p.settings.inputs, (std::vector<std::string>{"1x3x224x224", "mask=1x8:int64"}));
  EXPECT_EQ(p.settings.python, ".venv/bin/python");
  EXPECT_EQ(p.settings.mode, "eager");
  EXPECT_EQ(p.settings.compressor, "kmeans_palettizer");
  EXPECT_EQ(p.dir, "/w");
}

TEST(ProjectFile, FlowListsAndProblemsNameTheLine) {
  ProjectFile p = parse_project_file("inputs: [1x3, \"2x4:float16\"]\nmodle: x.pt2\nmode: fast\n",
                                     "/w/opscope.yaml");
  EXPECT_EQ(p.settings.inputs, (std::vector<std::string>{"1x3", "2x4:float16"}));
  ASSERT_EQ(p.problems.size(), 2u);
  EXPECT_NE(p.problems[0].find("/w/opscope.yaml:2: unknown key `modle`"), std::string::npos);
  EXPECT_NE(p.problems[1].find("mode `fast`"), std::string::npos);
  EXPECT_FALSE(p.settings.mode.has_value());
}

// What users write that a line-by-line reader misread: an apostrophe in a plain value (it
// hid the trailing comment), a flow list over two lines, a quoted `#`, an anchor.
TEST(ProjectFile, RealYamlQuotingCommentsAndMultiLineFlowLists) {
  ProjectFile p = parse_project_file("model: bob's model.pt2  # the archive\n"
                                     "inputs: [1x3x224x224,\n"
                                     "         'mask=1x8:int64']  # two inputs\n"
                                     "python: \"venv #2/bin/python\"\n"
                                     "mode: &m eager\n"
                                     "hf_class: 'It''s'\n",
                                     "/w/opscope.yaml");
  EXPECT_TRUE(p.problems.empty()) << p.problems.front();
  EXPECT_EQ(p.settings.model, "bob's model.pt2");
  EXPECT_EQ(p.settings.inputs, (std::vector<std::string>{"1x3x224x224", "mask=1x8:int64"}));
  EXPECT_EQ(p.settings.python, "venv #2/bin/python");
  EXPECT_EQ(p.settings.mode, "eager");
  EXPECT_EQ(p.settings.hf_class, "It's");
}

// The project file takes only top-level keys: nesting and lists elsewhere name their line.
TEST(ProjectFile, NestingAndListsOutsideInputsAreProblemsOnTheirLine) {
  ProjectFile p =
      parse_project_file("model:\n  path: m.pt2\npython:\n  - a\nmode: graph\n", "/w/opscope.yaml");
  ASSERT_EQ(p.problems.size(), 2u);
  EXPECT_EQ(p.problems[0],
            "/w/opscope.yaml:2: unexpected indented line; opscope.yaml has only top-level keys");
  EXPECT_EQ(p.problems[1], "/w/opscope.yaml:4: unexpected list item; only `inputs` takes a list");
  EXPECT_FALSE(p.settings.model.has_value());
  EXPECT_EQ(p.settings.mode, "graph");
}

TEST(ModelKinds, ArchivesIndexFilesAndPythonTargets) {
  EXPECT_EQ(model::model_kind("m.pt2"), ModelKind::Archive);
  EXPECT_EQ(model::model_kind("cache/m.json"), ModelKind::IndexFile);
  EXPECT_EQ(model::model_kind("pkg.models:make_model"), ModelKind::PythonTarget);
  EXPECT_EQ(model::model_kind("src/model.py:build"), ModelKind::PythonTarget);
}

// One rule for the editor (project file, settings) and the command line: a file that exists
// is what its content is, whatever its name; a name decides only for what does not exist.
TEST_F(ProjectTest, AModelIsWhatItsContentIsWhateverItsNameAndTheCliAgrees) {
  write(root_ / "opscope.yaml", "model: model.pt2\n");
  write(root_ / "model.pt2", "{\"format\":\"opscope-index\",\"version\":1}");
  write(root_ / "archive.json", std::string("PK\x03\x04rest", 8));
  std::string config = (root_ / "q.yaml").string();
  Resolution r = resolve_model(config, {index::Compressor::Quantizer, std::nullopt}, {}, "");
  ASSERT_TRUE(r.model.has_value()) << r.problem;
  EXPECT_EQ(r.model->kind, ModelKind::IndexFile) << "an index file named .pt2 is an index file";
  EXPECT_EQ(model::classify((root_ / "model.pt2").string()), ModelKind::IndexFile);

  write(root_ / "opscope.yaml", "model: archive.json\n");
  r = resolve_model(config, {index::Compressor::Quantizer, std::nullopt}, {}, "");
  ASSERT_TRUE(r.model.has_value()) << r.problem;
  EXPECT_EQ(r.model->kind, ModelKind::Archive) << "a zip named .json is an archive";
  EXPECT_EQ(model::classify((root_ / "archive.json").string()), ModelKind::Archive);

  // Relative to the project's folder, not the server's working directory.
  fs::path elsewhere = root_ / "configs";
  write(elsewhere / "opscope.yaml", "model: ../model.pt2\n");
  r = resolve_model((elsewhere / "q.yaml").string(), {index::Compressor::Quantizer, std::nullopt},
                    {}, "");
  ASSERT_TRUE(r.model.has_value()) << r.problem;
  EXPECT_EQ(r.model->kind, ModelKind::IndexFile);

  // A factory that is not a Python identifier is still a target (the export helper says
  // what is wrong with it), for the project as for the command line.
  EXPECT_EQ(model::model_kind("src/model.py:build-2"), ModelKind::PythonTarget);
  EXPECT_EQ(model::classify("some.module:build-2"), ModelKind::PythonTarget);
  // Not yet built: the name decides.
  EXPECT_EQ(model::model_kind((root_ / "later.json").string()), ModelKind::IndexFile);
  EXPECT_EQ(model::model_kind((root_ / "later.pt2").string()), ModelKind::Archive);
}

TEST_F(ProjectTest, FoundByWalkingUpAndPathsAreRelativeToIt) {
  write(root_ / "opscope.yaml", "model: model.pt2\nmode: graph\n");
  std::string config = (root_ / "configs" / "deep" / "quant.yaml").string();
  Resolution r = resolve_model(config, {index::Compressor::Quantizer, std::nullopt}, {}, "");
  ASSERT_TRUE(r.model.has_value()) << r.problem;
  EXPECT_EQ(r.project_file, (root_ / "opscope.yaml").string());
  EXPECT_EQ(r.model->path, (root_ / "model.pt2").string());
  EXPECT_EQ(r.model->kind, ModelKind::Archive);
  EXPECT_EQ(r.compressor, index::Compressor::Quantizer);
}

TEST_F(ProjectTest, AnEditedProjectFileIsReadAgainEvenThoughItsParseIsKept) {
  fs::path project = root_ / "opscope.yaml";
  std::string config = (root_ / "configs" / "quant.yaml").string();
  auto model_path = [&] {
    Resolution r = resolve_model(config, {index::Compressor::Quantizer, std::nullopt}, {}, "");
    return r.model ? r.model->path : r.problem;
  };
  // An old file: its parse is kept from the first request on.
  write(project, "model: a.pt2\n");
  const auto an_hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(project, an_hour_ago);
  EXPECT_EQ(model_path(), (root_ / "a.pt2").string());
  EXPECT_EQ(model_path(), (root_ / "a.pt2").string());
  // Edited (same size): a new modification time.
  write(project, "model: b.pt2\n");
  EXPECT_EQ(model_path(), (root_ / "b.pt2").string());
  // Edited again at once, same size, maybe within the same timestamp tick: still seen.
  write(project, "model: c.pt2\n");
  EXPECT_EQ(model_path(), (root_ / "c.pt2").string());
  // Replaced (as editors save) by a file of the same size and the first one's time: a new inode.
  fs::path replacement = root_ / "replacement.yaml";
  write(replacement, "model: d.pt2\n");
  fs::last_write_time(replacement, an_hour_ago);
  fs::rename(replacement, project);
  EXPECT_EQ(model_path(), (root_ / "d.pt2").string());
}

TEST_F(ProjectTest, ConfigRootAndExecutionModeBeatTheProjectFileButNotTheEditor) {
  write(root_ / "opscope.yaml", "model: model.pt2\nmode: graph\ncompressor: magnitude_pruner\n");
  std::string config = (root_ / "configs" / "quant.yaml").string();
  Resolution r =
      resolve_model(config, {index::Compressor::KMeansPalettizer, index::Mode::Eager}, {}, "");
  EXPECT_EQ(r.compressor, index::Compressor::KMeansPalettizer);
  EXPECT_EQ(r.model->mode, index::Mode::Eager);
  // A config without a root key (a fragment) takes the project file's compressor.
  EXPECT_EQ(resolve_model(config, {index::Compressor::None, std::nullopt}, {}, "").compressor,
            index::Compressor::MagnitudePruner);

  ModelSettings editor;
  editor.mode = "graph";
  editor.compressor = "quantizer";
  editor.model = "other.pt2";
  r = resolve_model(config, {index::Compressor::KMeansPalettizer, index::Mode::Eager}, editor,
                    "/workspace");
  EXPECT_EQ(r.compressor, index::Compressor::Quantizer);
  EXPECT_EQ(r.model->mode, index::Mode::Graph);
  EXPECT_EQ(r.model->path, "/workspace/other.pt2");
  EXPECT_EQ(r.model->origin, "editor settings");
}

TEST_F(ProjectTest, PalettizerAndPrunerConfigsDefaultToEagerMode) {
  // coreai-opt's KMeansPalettizer and MagnitudePruner have no graph mode: with no mode set
  // anywhere, a palettization config must not be checked against graph-mode names.
  write(root_ / "opscope.yaml", "model: model.pt2\n");
  std::string config = (root_ / "configs" / "palettize.yaml").string();
  Resolution r = resolve_model(config, {index::Compressor::KMeansPalettizer, std::nullopt}, {}, "");
  ASSERT_TRUE(r.model.has_value());
  EXPECT_EQ(r.model->mode, index::Mode::Eager);
  r = resolve_model(config, {index::Compressor::Quantizer, std::nullopt}, {}, "");
  EXPECT_EQ(r.model->mode, index::Mode::Graph);
}

TEST_F(ProjectTest, PalettizerAndPrunerConfigsRunEagerWhateverModeIsSet) {
  // A project's `mode: graph` is for its quantization configs: coreai-opt runs the palettizer
  // and the pruner on the nn.Module only, so their configs are checked against eager names
  // (the editor used to check them against graph-mode tables, `check` to refuse them).
  write(root_ / "opscope.yaml", "model: model.pt2\nmode: graph\n");
  std::string config = (root_ / "configs" / "prune.yaml").string();
  EXPECT_EQ(
      resolve_model(config, {index::Compressor::MagnitudePruner, std::nullopt}, {}, "").model->mode,
      index::Mode::Eager);
  EXPECT_EQ(resolve_model(config, {index::Compressor::KMeansPalettizer, index::Mode::Graph}, {}, "")
                .model->mode,
            index::Mode::Eager);
  ModelSettings editor;
  editor.mode = "graph";
  EXPECT_EQ(resolve_model(config, {index::Compressor::MagnitudePruner, std::nullopt}, editor, "")
                .model->mode,
            index::Mode::Eager);
  EXPECT_EQ(
      resolve_model(config, {index::Compressor::Quantizer, std::nullopt}, editor, "").model->mode,
      index::Mode::Graph);
}

TEST_F(ProjectTest, PythonTargetsKeepInputsAndFindTheirSourceFile) {
  fs::create_directories(root_ / "pkg");
  write(root_ / "pkg" / "models.py", "def make(): ...\n");
  write(root_ / "opscope.yaml", "model: pkg.models:make\ninputs: [1x3x64x64]\npython: python3\n");
  Resolution r = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
  ASSERT_TRUE(r.model.has_value());
  EXPECT_EQ(r.model->kind, ModelKind::PythonTarget);
  EXPECT_EQ(r.model->target, "pkg.models:make");
  EXPECT_EQ(r.model->path, (root_ / "pkg" / "models.py").string());
  EXPECT_EQ(r.model->work_dir, root_.string());
  EXPECT_EQ(r.model->python, "python3");
  EXPECT_EQ(r.model->inputs, (std::vector<std::string>{"1x3x64x64"}));
}

TEST_F(ProjectTest, EachPathIsRelativeToWhereItWasWritten) {
  // The editor (or `opscope check --model`) names the model; the project file names the
  // interpreter: the interpreter stays relative to the project, not to the workspace.
  write(root_ / "opscope.yaml", "model: m.py:build\npython: env/bin/python\n");
  ModelSettings editor;
  editor.model = "src/model.py:build";
  Resolution r = resolve_model((root_ / "q.yaml").string(), {}, editor, "/workspace");
  ASSERT_TRUE(r.model.has_value());
  EXPECT_EQ(r.model->target, "/workspace/src/model.py:build");
  EXPECT_EQ(r.model->python, (root_ / "env" / "bin" / "python").string());
}

TEST_F(ProjectTest, NoModelSaysWhatToDo) {
  Resolution r = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
  // (A stray opscope.yaml above the temp dir would make this test meaningless.)
  if (!r.project_file.empty())
    GTEST_SKIP() << "an opscope.yaml exists above " << root_;
  EXPECT_FALSE(r.model.has_value());
  EXPECT_NE(r.problem.find("opscope.yaml"), std::string::npos);
  EXPECT_NE(r.problem.find("opscope.model"), std::string::npos);

  write(root_ / "opscope.yaml", "mode: graph\n");
  r = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
  EXPECT_NE(r.problem.find("does not name a model"), std::string::npos);
}

TEST_F(ProjectTest, HfConfigTargetsAreRelativeToTheProjectAndCarryWeightlessAndClass) {
  write(root_ / "config.json", "{\"model_type\": \"llama\"}");
  write(root_ / "opscope.yaml", "model: hf:./config.json\nweightless: true\n"
                                "hf_class: AutoModelForCausalLM\n");
  Resolution r = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
  ASSERT_TRUE(r.model) << r.problem;
  EXPECT_TRUE(r.project_problems.empty());
  EXPECT_EQ(r.model->kind, ModelKind::PythonTarget);
  EXPECT_EQ(r.model->target, "hf:" + (root_ / "config.json").string());
  EXPECT_EQ(r.model->path, (root_ / "config.json").string()); // watched for edits
  EXPECT_TRUE(r.model->weightless);
  EXPECT_EQ(r.model->hf_class, "AutoModelForCausalLM");
  // The export flags are part of the model's identity: a weightless and a real export of
  // the same target are two cache entries.
  ModelSettings editor;
  editor.weightless = false;
  Resolution real = resolve_model((root_ / "configs" / "q.yaml").string(), {}, editor, "");
  EXPECT_FALSE(real.model->weightless);
  EXPECT_NE(real.model->key(), r.model->key());

  // A folder holding config.json, and a model id for the local Hugging Face cache.
  write(root_ / "opscope.yaml", "model: hf:.\n");
  r = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
  EXPECT_EQ(r.model->path, (root_ / "config.json").string());
  EXPECT_TRUE(r.model->weightless); // the default
  write(root_ / "opscope.yaml", "model: hf:meta-llama/Llama-3.1-8B\n");
  r = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
  EXPECT_EQ(r.model->target, "hf:meta-llama/Llama-3.1-8B");
}

// Issue 22: names never need weight data, so a Python target is exported without it unless
// the project says `weightless: false` (a model that reads tensor values, weight-aware work).
TEST_F(ProjectTest, PythonTargetsAreWeightlessUnlessTheProjectSaysFalse) {
  write(root_ / "model.py", "def build(): ...\n");
  write(root_ / "opscope.yaml", "model: model.py:build\n");
  Resolution r = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
  ASSERT_TRUE(r.model) << r.problem;
  EXPECT_TRUE(r.model->weightless);
  write(root_ / "opscope.yaml", "model: model.py:build\nweightless: false\n");
  Resolution real = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
  ASSERT_TRUE(real.model) << real.problem;
  EXPECT_FALSE(real.model->weightless);
  EXPECT_NE(real.model->key(), r.model->key());
}

TEST(ProjectFile, WeightlessTakesTrueOrFalse) {
  ProjectFile p =
      parse_project_file("model: m.py:build\nweightless: yes please\n", "/w/opscope.yaml");
  ASSERT_EQ(p.problems.size(), 1u);
  EXPECT_NE(p.problems[0].find("/w/opscope.yaml:2: `weightless` is `yes please`; use true or "
                               "false"),
            std::string::npos)
      << p.problems[0];
  EXPECT_FALSE(p.settings.weightless);
  p = parse_project_file("weightless: false\n", "/w/opscope.yaml");
  EXPECT_EQ(p.settings.weightless, std::optional<bool>(false));
}

// The interpreter nobody named: the activated virtualenv (the user's shell, as for `opscope
// export`), then the nearest .venv, then python3; one the project names beats all of them.
TEST_F(ProjectTest, AnActivatedVirtualenvIsTheDefaultInterpreterBeforeTheNearestVenv) {
  fs::create_directories(root_ / ".venv" / "bin");
  write(root_ / ".venv" / "bin" / "python", "");
  fs::create_directories(root_ / "activated" / "bin");
  write(root_ / "activated" / "bin" / "python", "");
  write(root_ / "opscope.yaml", "model: m.py:build\n");
  const char* saved = std::getenv("VIRTUAL_ENV");
  const std::string restore = saved ? saved : "";
  auto python = [&] {
    Resolution r = resolve_model((root_ / "configs" / "q.yaml").string(), {}, {}, "");
    return r.model ? r.model->python : std::string("(no model)");
  };
  ::unsetenv("VIRTUAL_ENV");
  EXPECT_EQ(python(), (root_ / ".venv" / "bin" / "python").string());
  ::setenv("VIRTUAL_ENV", (root_ / "activated").c_str(), 1);
  EXPECT_EQ(python(), (root_ / "activated" / "bin" / "python").string());
  ::setenv("VIRTUAL_ENV", (root_ / "gone").c_str(), 1); // a stale variable: not used
  EXPECT_EQ(python(), (root_ / ".venv" / "bin" / "python").string());
  ::setenv("VIRTUAL_ENV", (root_ / "activated").c_str(), 1);
  write(root_ / "opscope.yaml", "model: m.py:build\npython: python3\n");
  EXPECT_EQ(python(), "python3");
  if (saved)
    ::setenv("VIRTUAL_ENV", restore.c_str(), 1);
  else
    ::unsetenv("VIRTUAL_ENV");
}

// A PEFT config names its base model by Hugging Face id: found in the local hub cache as
// huggingface_hub lays it out (refs/main -> snapshots/<rev>/config.json), never downloaded.
TEST_F(ProjectTest, AConfigsOwnBaseModelIsFoundInTheHubCacheUnlessTheProjectNamesOne) {
  fs::path hub = root_ / "hf" / "hub";
  fs::path repo = hub / "models--meta-llama--Llama-3.1-8B";
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots" / "abc123");
  write(repo / "refs" / "main", "abc123");
  write(repo / "snapshots" / "abc123" / "config.json", "{\"model_type\": \"llama\"}");
  ::setenv("HF_HUB_CACHE", hub.c_str(), 1);

  ConfigHints hints;
  hints.model = "meta-llama/Llama-3.1-8B";
  std::string config = (root_ / "configs" / "adapter_config.json").string();
  Resolution r = resolve_model(config, hints, {}, "");
  ASSERT_TRUE(r.model) << r.problem;
  EXPECT_TRUE(r.model_from_config);
  EXPECT_EQ(r.model->target, "hf:" + (repo / "snapshots" / "abc123" / "config.json").string());
  EXPECT_EQ(r.model->written, "hf:meta-llama/Llama-3.1-8B");
  EXPECT_EQ(r.model->origin, config);

  // An id the cache does not hold: says where it looked and how to get the config, no model.
  hints.model = "Qwen/Qwen2.5-7B";
  r = resolve_model(config, hints, {}, "");
  EXPECT_FALSE(r.model);
  EXPECT_NE(r.problem.find("Qwen/Qwen2.5-7B"), std::string::npos) << r.problem;
  EXPECT_NE(r.problem.find(hub.string()), std::string::npos) << r.problem;
  EXPECT_NE(r.problem.find("opscope.yaml"), std::string::npos) << r.problem;

  // The project file still decides.
  write(root_ / "opscope.yaml", "model: resnet.pt2\n");
  r = resolve_model(config, hints, {}, "");
  ASSERT_TRUE(r.model);
  EXPECT_FALSE(r.model_from_config);
  EXPECT_EQ(r.model->path, (root_ / "resnet.pt2").string());
  ::unsetenv("HF_HUB_CACHE");
}

// Issue 28: where explain reads real weights. `weights:` names them, relative to the project;
// without it an hf: model's are beside its config.json (a save_pretrained folder, the cached
// snapshot of a model id); an archive's are its own.
TEST_F(ProjectTest, WeightsAreWhereTheProjectSaysElseBesideAnHfModelsConfig) {
  const std::string config = (root_ / "configs" / "q.yaml").string();
  write(root_ / "opscope.yaml", "model: resnet.pt2\n");
  Resolution r = resolve_model(config, {}, {}, "");
  ASSERT_TRUE(r.model) << r.problem;
  EXPECT_EQ(r.model->weights, ""); // the archive's own

  write(root_ / "opscope.yaml", "model: model.pt2\nweights: ckpt/model.safetensors\n");
  r = resolve_model(config, {}, {}, "");
  EXPECT_TRUE(r.project_problems.empty());
  EXPECT_EQ(r.model->weights, (root_ / "ckpt" / "model.safetensors").string());
  const std::string before = r.model->key();
  write(root_ / "opscope.yaml", "model: model.pt2\nweights: other\n");
  EXPECT_EQ(resolve_model(config, {}, {}, "").model->key(), before); // no new export for it

  fs::create_directories(root_ / "llama");
  write(root_ / "llama" / "config.json", "{\"model_type\": \"llama\"}");
  write(root_ / "opscope.yaml", "model: hf:llama\n");
  r = resolve_model(config, {}, {}, "");
  EXPECT_EQ(r.model->weights, (root_ / "llama").string());

  fs::path repo = root_ / "hf" / "hub" / "models--org--tiny";
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots" / "abc123");
  write(repo / "refs" / "main", "abc123");
  write(repo / "snapshots" / "abc123" / "config.json", "{\"model_type\": \"llama\"}");
  ::setenv("HF_HUB_CACHE", (root_ / "hf" / "hub").c_str(), 1);
  write(root_ / "opscope.yaml", "model: hf:org/tiny\n");
  r = resolve_model(config, {}, {}, "");
  EXPECT_EQ(r.model->weights, (repo / "snapshots" / "abc123").string());
  ::unsetenv("HF_HUB_CACHE");

  // The editor's setting wins, relative to its folder.
  ModelSettings editor;
  editor.weights = "w.safetensors";
  r = resolve_model(config, {}, editor, "/editor");
  EXPECT_EQ(r.model->weights, "/editor/w.safetensors");
}

TEST(HfCache, IdsAreOrgSlashNameAndNeverPaths) {
  EXPECT_TRUE(looks_like_hf_id("meta-llama/Llama-3.1-8B"));
  EXPECT_TRUE(looks_like_hf_id("gpt2"));
  EXPECT_FALSE(looks_like_hf_id("../secrets"));
  EXPECT_FALSE(looks_like_hf_id("a/b/c"));
  EXPECT_FALSE(looks_like_hf_id("/etc/passwd"));
  EXPECT_FALSE(looks_like_hf_id("org/.hidden"));
  EXPECT_FALSE(looks_like_hf_id(""));
}

// coreai-opt reads `pt2e` (and `PT2E`) as graph, its deprecated alias: the one rule every
// layer asks (coreai::config_mode) says so too, and a palettizer runs eager whatever is written.
TEST(ConfigMode, OneRuleAsCoreaiOptReadsExecutionMode) {
  using coreai::Compressor;
  using coreai::config_mode;
  using coreai::Mode;
  EXPECT_EQ(config_mode(Compressor::Quantizer, std::nullopt), Mode::Graph);
  EXPECT_EQ(config_mode(Compressor::Quantizer, "eager"), Mode::Eager);
  EXPECT_EQ(config_mode(Compressor::Quantizer, "pt2e"), Mode::Graph);
  EXPECT_EQ(config_mode(Compressor::Quantizer, "PT2E"), Mode::Graph);
  EXPECT_FALSE(coreai::execution_mode_value("Graph")); // coreai-opt refuses it
  EXPECT_EQ(config_mode(Compressor::KMeansPalettizer, "graph"), Mode::Eager);
  EXPECT_EQ(config_mode(Compressor::MagnitudePruner, std::nullopt), Mode::Eager);
}

} // namespace
} // namespace opscope::project
