#include "opscope/workspace/workspace.h"

#include <gtest/gtest.h>

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
  Model model;
  bool trusted = false;
  int loads = 0;
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
  std::vector<features::Diagnostic> found = workspace.diagnose(analysis);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].code, "no-model");
  EXPECT_EQ(found[0].severity, features::Severity::Error);
  EXPECT_EQ(found[0].range, analysis.config->root_range);
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
  std::vector<features::Diagnostic> found = workspace.diagnose(analysis);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].code, "untrusted-project");
  EXPECT_EQ(found[0].severity, features::Severity::Error);
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
  EXPECT_EQ(problem->severity, features::Severity::Error);
  EXPECT_EQ(problem->message, "opscope cannot load the model model.pt2 (from " +
                                  (root_ / "opscope.yaml").string() + "): the archive is damaged");

  host_.model.index = std::make_shared<const index::Index>();
  problem = workspace.model_problem(workspace.analyse(config(kConfig)));
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->severity, features::Severity::Warning);
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
  auto first = workspace.analyse(config(kConfig, 7)).config;
  EXPECT_EQ(workspace.analyse(config(kConfig, 7)).config, first);
  EXPECT_NE(workspace.analyse(config(kConfig, 8)).config, first);
  auto from_disk = workspace.analyse(config(kConfig, 0)).config;
  EXPECT_NE(workspace.analyse(config(kConfig, 0)).config, from_disk);
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
  std::vector<features::Diagnostic> found = check.diagnose(check.analyse(other));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].code, "no-model");
}

} // namespace
} // namespace opscope::workspace
