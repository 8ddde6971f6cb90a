#include "opscope/workspace/workspace.h"

#include "opscope/dialects/coreai/dialect.h"
#include "opscope/schema/schema.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace opscope::workspace {
namespace {
namespace fs = std::filesystem;

constexpr const char* kConfig = "quantization_config:\n  module_name_configs:\n    fc: null\n";

// A host whose answers the test sets, counting the loads the workspace asks for.
class FakeHost : public Host {
public:
  const Model* ensure(const project::ModelSpec& spec) override {
    ++loads;
    model.spec = spec;
    return &model;
  }
  bool allows(const trust::Need& need) override { return !need.needed() || trusted; }
  std::string untrusted_message(const trust::Need& need) const override {
    return "consent needed for " + need.model;
  }
  void make_schema_dump(const SchemaDump& dump) override {
    dumps.push_back(dump);
    if (dump_text.empty())
      return;
    fs::create_directories(fs::path(dump.path).parent_path());
    std::ofstream(dump.temporary()) << dump_text; // what the helper would write
    dump_problem = install_schema_dump(dump);
  }
  Model model;
  bool trusted = false;
  int loads = 0;
  std::vector<SchemaDump> dumps; // asked for
  std::string dump_text;         // made in-line (as `check` does) when not empty
  std::optional<std::string> dump_problem;
};

class WorkspaceTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("opscope-workspace-test-" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "configs");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  Document config(const std::string& text, std::uint64_t revision = 1) {
    Document doc;
    doc.path = (root_ / "configs" / "q.yaml").string();
    doc.uri = "file://" + doc.path;
    doc.text = text;
    doc.revision = revision;
    return doc;
  }
  fs::path root_;
  FakeHost host_;
};

TEST_F(WorkspaceTest, WithoutAModelOneErrorSaysHowToNameOne) {
  Workspace workspace(host_, {});
  Analysis analysis = workspace.analyse(config(kConfig));
  std::vector<dialects::Diagnostic> found = workspace.diagnose(analysis);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].code, "no-model");
  EXPECT_EQ(found[0].severity, dialects::Severity::Error);
  EXPECT_EQ(found[0].range,
            dialects::coreai::document_of(analysis.document.get())->config().root_range);
  EXPECT_EQ(found[0].message.rfind("no model to check names against: create an opscope.yaml", 0),
            0u);
  EXPECT_NE(found[0].message.find("opscope check --model"), std::string::npos);
  EXPECT_EQ(host_.loads, 0);
}

TEST_F(WorkspaceTest, AnUntrustedModelIsNeverLoaded) {
  write(root_ / "opscope.yaml", "model: model.py:build\n");
  Workspace workspace(host_, {});
  Analysis analysis = workspace.analyse(config(kConfig));
  EXPECT_TRUE(analysis.untrusted.needed());
  std::vector<dialects::Diagnostic> found = workspace.diagnose(analysis);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].code, "untrusted-project");
  EXPECT_EQ(found[0].severity, dialects::Severity::Error);
  EXPECT_EQ(found[0].message, "consent needed for model.py:build");
  EXPECT_EQ(host_.loads, 0);

  host_.trusted = true; // now it loads, and while it loads there is nothing to say
  analysis = workspace.analyse(config(kConfig));
  EXPECT_EQ(host_.loads, 1);
  EXPECT_EQ(workspace.model_problem(analysis), std::nullopt);
}

TEST_F(WorkspaceTest, CommandLineModelsNeedNoConsent) {
  Settings settings;
  settings.models.model = "model.py:build";
  settings.base_dir = root_.string();
  settings.chosen_by_user = true;
  Workspace workspace(host_, settings);
  Analysis analysis = workspace.analyse(config(kConfig));
  EXPECT_FALSE(analysis.untrusted.needed());
  EXPECT_EQ(host_.loads, 1);
}

TEST_F(WorkspaceTest, AFailedLoadIsAnErrorUntilThereIsALastGoodIndex) {
  write(root_ / "opscope.yaml", "model: model.pt2\n");
  host_.model.state = ModelState::Failed;
  host_.model.error = "the archive is damaged";
  Workspace workspace(host_, {});
  auto problem = workspace.model_problem(workspace.analyse(config(kConfig)));
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->severity, dialects::Severity::Error);
  EXPECT_EQ(problem->message, "opscope cannot load the model model.pt2 (from " +
                                  (root_ / "opscope.yaml").string() + "): the archive is damaged");

  host_.model.index = std::make_shared<const index::Index>();
  problem = workspace.model_problem(workspace.analyse(config(kConfig)));
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->severity, dialects::Severity::Warning);
  EXPECT_NE(problem->message.find("; showing the last good index"), std::string::npos);
}

TEST_F(WorkspaceTest, AnEditedProjectFileIsReportedOnce) {
  write(root_ / "opscope.yaml", "model: model.pt2\n");
  Workspace workspace(host_, {});
  workspace.analyse(config(kConfig));
  EXPECT_TRUE(workspace.changed_project_files().empty());
  write(root_ / "opscope.yaml", "model: other-model.pt2\n"); // a different size
  EXPECT_EQ(workspace.changed_project_files(),
            (std::vector<std::string>{(root_ / "opscope.yaml").string()}));
  EXPECT_TRUE(workspace.changed_project_files().empty());
}

TEST_F(WorkspaceTest, ParsesAreKeptPerRevisionButNotForFilesReadFromDisk) {
  Workspace workspace(host_, {});
  auto first = workspace.analyse(config(kConfig, 7)).document;
  EXPECT_EQ(workspace.analyse(config(kConfig, 7)).document, first);
  EXPECT_NE(workspace.analyse(config(kConfig, 8)).document, first);
  auto from_disk = workspace.analyse(config(kConfig, 0)).document;
  EXPECT_NE(workspace.analyse(config(kConfig, 0)).document, from_disk);
}

// Typing inside a key patches the last parse in place (a 10 MB config is not read again per
// keystroke) even though the editor frees what an edit made stale later, off its request
// thread; while a background check still reads the last revision, the edit patches a copy.
TEST_F(WorkspaceTest, TypingInsideAKeyPatchesTheParseUnlessACheckStillReadsIt) {
  struct EditorHost : FakeHost {
    void release(std::shared_ptr<const void> stale) override { queued.push_back(stale); }
    std::vector<std::shared_ptr<const void>> queued; // freed later, as the editor does
  } host;
  Workspace workspace(host, {});
  auto parse_of = [&](const Analysis& analysis) {
    return &dialects::coreai::document_of(analysis.document.get())->config();
  };
  const std::string text = "quantization_config:\n  module_name_configs:\n    fc1: null\n";
  const config::ConfigDocument* first = parse_of(workspace.analyse(config(text, 1)));
  std::string typed = text;
  typed.insert(typed.find("fc1") + 3, "0"); // fc1 -> fc10
  const config::ConfigDocument* second = parse_of(workspace.analyse(config(typed, 2)));
  EXPECT_EQ(second, first);

  Analysis checked = workspace.analyse(config(typed, 2)); // a check holds this revision
  typed.insert(typed.find("fc10") + 4, "0");
  Analysis third = workspace.analyse(config(typed, 3));
  EXPECT_NE(parse_of(third), parse_of(checked));
  EXPECT_EQ(parse_of(checked)->keys.at(0).text, "fc10"); // what the check reads is untouched
  EXPECT_EQ(parse_of(third)->keys.at(0).text, "fc100");
}

// Another library's config (here axolotl's YAML, PEFT's) is read by the dialect that
// recognises it, once per revision (every hover and completion of a revision shares it), and
// names its own model; coreai-opt reads a coreai-opt config.
TEST_F(WorkspaceTest, ALibrarysConfigIsReadByItsDialectOncePerRevision) {
  Workspace workspace(host_, {});
  Document doc =
      config("base_model: org/tiny-llama\nadapter: lora\nlora_target_modules:\n  - q_proj\n", 3);
  Analysis first = workspace.analyse(doc);
  EXPECT_EQ(first.dialect->name(), "peft");
  EXPECT_EQ(first.document->model(), "org/tiny-llama");
  EXPECT_EQ(workspace.analyse(doc).document, first.document);
  doc.text += "  - v_proj\n";
  doc.revision = 4;
  EXPECT_NE(workspace.analyse(doc).document, first.document);
  EXPECT_EQ(workspace.analyse(config(kConfig, 5)).dialect->name(), "coreai-opt");
}

TEST_F(WorkspaceTest, OtherFilesAreCheckedOnlyWhenNamed) {
  Document other = config("services:\n  web: [\n");
  Workspace editor(host_, {});
  Analysis analysis = editor.analyse(other);
  EXPECT_FALSE(analysis.resolved);
  EXPECT_TRUE(editor.diagnose(analysis).empty()); // an editor opens every YAML file

  Settings named;
  named.every_document_is_a_config = true; // `check` was given this file
  Workspace check(host_, named);
  std::vector<dialects::Diagnostic> found = check.diagnose(check.analyse(other));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].code, "no-model");
}

// A fake coreai-opt 0.5.0 whose spec takes `dtype: int9` (0.4.0 refuses it).
constexpr const char* kDump050 = R"({"format": "opscope-coreai-schema/1", "coreai_opt": "0.5.0",
  "roots": {"quantization_config": {"model": "Q", "spec_key": "quantization_spec"}},
  "models": {
    "Q": {"forbid": true, "fields": [{"name": "global_config", "type": {"kind": "model", "model": "M"}}]},
    "M": {"forbid": true, "fields": [{"name": "op_state_spec", "type": {"kind": "dict",
          "key": {"kind": "str"}, "value": {"kind": "model", "model": "S"}}}]},
    "S": {"forbid": true, "fields": [{"name": "dtype", "type": {"kind": "enum", "values": ["int9"]}}]}}})";

class SchemaDumpTest : public WorkspaceTest {
protected:
  void SetUp() override {
    WorkspaceTest::SetUp();
    setenv("XDG_CACHE_HOME", (root_ / "cache").c_str(), 1);
    host_.dump_text = kDump050;
  }
  // The project's venv holds coreai-opt `version`: only its dist-info folder, nothing runs.
  // (A version read once stays in memory for the process: each test has its own.)
  void venv(const std::string& version) {
    fs::create_directories(root_ / ".venv/lib/python3.11/site-packages" /
                           ("coreai_opt-" + version + ".dist-info"));
    fs::create_directories(root_ / ".venv/bin");
  }
  void TearDown() override {
    unsetenv("XDG_CACHE_HOME");
    WorkspaceTest::TearDown();
  }
  static constexpr const char* kInt9 =
      "quantization_config:\n  global_config:\n    op_state_spec:\n      weight: {dtype: int9}\n";
};

TEST_F(SchemaDumpTest, TheDumpRunsOnlyOnceTheProjectsPythonMayRun) {
  venv("0.5.0");
  write(root_ / "opscope.yaml", "model: model.py:build\npython: .venv/bin/python\n");
  Workspace workspace(host_, {});
  Analysis analysis = workspace.analyse(config(kInt9));
  EXPECT_TRUE(host_.dumps.empty()); // untrusted: nothing runs, the built-in copy serves
  EXPECT_EQ(schema::chosen_or_builtin(analysis.schema).coreai_opt_version, "0.4.0");

  host_.trusted = true;
  analysis = workspace.analyse(config(kInt9));
  ASSERT_EQ(host_.dumps.size(), 1u);
  EXPECT_EQ(host_.dumps[0].version, "0.5.0");
  EXPECT_EQ(host_.dumps[0].python, (root_ / ".venv/bin/python").string());
  EXPECT_EQ(host_.dumps[0].path, (root_ / "cache/opscope/schema/coreai-opt-0.5.0.json").string());
  EXPECT_EQ(host_.dump_problem, std::nullopt);
  // Made in-line: this very analysis, its diagnostics and the next ones use 0.5.0's models.
  EXPECT_EQ(schema::chosen_or_builtin(analysis.schema).coreai_opt_version, "0.5.0");
  for (const dialects::Diagnostic& d : workspace.diagnose(analysis))
    EXPECT_NE(d.code.rfind("schema-", 0), 0u) << d.message; // 0.5.0 takes int9
  workspace.analyse(config(kInt9));
  EXPECT_EQ(host_.dumps.size(), 1u); // in the cache now: not asked again
}

TEST_F(SchemaDumpTest, AnArchiveRunsNoPythonSoTheBuiltinCopyServes) {
  venv("0.5.2");
  write(root_ / "opscope.yaml", "model: model.pt2\npython: .venv/bin/python\n");
  Workspace workspace(host_, {});
  Analysis analysis = workspace.analyse(config(kInt9));
  EXPECT_TRUE(host_.dumps.empty());
  EXPECT_EQ(schema::chosen_or_builtin(analysis.schema).coreai_opt_version, "0.4.0");
  bool refused = false;
  for (const dialects::Diagnostic& d : workspace.diagnose(analysis))
    refused |= d.code == "schema-value";
  EXPECT_TRUE(refused); // 0.4.0 has no int9
}

TEST_F(SchemaDumpTest, ADumpOfAnotherVersionIsRefusedAndRemoved) {
  venv("0.5.1");
  write(root_ / "opscope.yaml", "model: model.py:build\npython: .venv/bin/python\n");
  host_.trusted = true;
  host_.dump_text = kDump050; // says 0.5.0 while the venv holds 0.5.1
  Workspace workspace(host_, {});
  Analysis analysis = workspace.analyse(config(kInt9));
  ASSERT_TRUE(host_.dump_problem);
  EXPECT_EQ(*host_.dump_problem, "it dumped coreai-opt 0.5.0, not the 0.5.1 installed beside it");
  EXPECT_EQ(schema::chosen_or_builtin(analysis.schema).coreai_opt_version, "0.4.0");
  EXPECT_FALSE(fs::exists(host_.dumps[0].temporary()));
  EXPECT_FALSE(fs::exists(host_.dumps[0].path));
  std::string message = schema_dump_failure(host_.dumps[0], *host_.dump_problem,
                                            {"PY", "HELPER", "schema", "-o", "FILE"});
  EXPECT_EQ(message, "opscope cannot make the schema of coreai-opt 0.5.1 (" + host_.dumps[0].path +
                         ") with " + host_.dumps[0].python +
                         ": it dumped coreai-opt 0.5.0, not the 0.5.1 installed beside it; "
                         "configs are checked against the built-in 0.4.0 schema until it is "
                         "there. `PY HELPER schema -o FILE` makes it by hand");
}

} // namespace
} // namespace opscope::workspace
