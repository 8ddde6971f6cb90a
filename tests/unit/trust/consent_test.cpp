#include "opscope/trust/consent.h"

#include "temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace opscope::trust {
namespace {

using testing::TempDir;

struct Repo : TempDir {
  std::string root = (path / "repo").string();
  std::string config;
  explicit Repo(const std::string& opscope_yaml) {
    write("repo/opscope.yaml", opscope_yaml);
    config = write("repo/configs/q.yaml", "quantization_config: {}\n");
  }
  project::Resolution resolve(const project::ModelSettings& chosen = {}) const {
    return project::resolve_model(config, {index::Compressor::Quantizer, std::nullopt}, chosen,
                                  root);
  }
};

TEST(Consent, ArchivesAndIndexFilesNeedNone) {
  Repo repo("model: model.pt2\npython: tools/evil.sh\n");
  EXPECT_FALSE(consent_needed(repo.resolve(), {}, false, repo.root).needed());
  Repo index("model: index.json\n");
  EXPECT_FALSE(consent_needed(index.resolve(), {}, false, index.root).needed());
}

TEST(Consent, APythonTargetFromTheProjectFileNeedsItsContent) {
  Repo repo("model: model.py:build\npython: tools/evil.sh\n");
  Need need = consent_needed(repo.resolve(), {}, false, repo.root);
  ASSERT_EQ(need.subjects.size(), 1u);
  EXPECT_EQ(need.subjects[0].key, repo.root + "/opscope.yaml");
  EXPECT_EQ(need.subjects[0].sha256, sha256_hex("model: model.py:build\npython: tools/evil.sh\n"));
  EXPECT_EQ(need.interpreter, "tools/evil.sh");
  EXPECT_EQ(need.what_would_run(),
            "opscope.yaml names a Python model (model.py:build) that opscope would run with "
            "tools/evil.sh");
}

TEST(Consent, TheRepositorysVenvIsShownAsTheInterpreter) {
  Repo repo("model: model.py:build\ninputs: [1x3x8x8]\n");
  repo.write("repo/.venv/bin/python", "#!/bin/sh\ntouch /tmp/pwned\n");
  Need need = consent_needed(repo.resolve(), {}, false, repo.root);
  ASSERT_TRUE(need.needed());
  EXPECT_EQ(need.runs(), "model.py:build with .venv/bin/python, inputs 1x3x8x8");
}

TEST(Consent, EditorSettingsAreUntrustedButTheCommandLineIsTheUsersChoice) {
  Repo repo("mode: graph\n"); // names no model: the settings decide everything
  project::ModelSettings chosen;
  chosen.model = "model.py:build";
  chosen.python = "/usr/bin/python3";
  Need editor = consent_needed(repo.resolve(chosen), chosen, false, repo.root);
  ASSERT_EQ(editor.subjects.size(), 1u);
  EXPECT_EQ(editor.subjects[0].key, "editor-settings:" + repo.root);
  EXPECT_TRUE(editor.editor_settings);
  EXPECT_EQ(editor.what_would_run().rfind("the editor settings name a Python model", 0), 0u);
  EXPECT_FALSE(consent_needed(repo.resolve(chosen), chosen, true, repo.root).needed());
}

TEST(Consent, ACommandLineTargetWithTheProjectsInterpreterStillNeedsTheProject) {
  Repo repo("model: model.pt2\npython: tools/evil.sh\n");
  project::ModelSettings chosen;
  chosen.model = "model.py:build";
  Need need = consent_needed(repo.resolve(chosen), chosen, true, repo.root);
  ASSERT_EQ(need.subjects.size(), 1u);
  EXPECT_EQ(need.project_file, repo.root + "/opscope.yaml");
  chosen.python = "python3"; // the user's own interpreter: nothing of the project's runs
  EXPECT_FALSE(consent_needed(repo.resolve(chosen), chosen, true, repo.root).needed());
}

TEST(Consent, EveryTrustedSubjectIsRequired) {
  Repo repo("model: model.py:build\n");
  project::ModelSettings chosen;
  chosen.python = "/usr/bin/python3"; // from the editor: both sources decide
  Need need = consent_needed(repo.resolve(chosen), chosen, false, repo.root);
  ASSERT_EQ(need.subjects.size(), 2u);
  EXPECT_EQ(need.what_would_run().rfind("opscope.yaml and the editor settings name", 0), 0u);
  Store store((repo.path / "trusted.json").string());
  store.allow(need.subjects[0]);
  EXPECT_FALSE(is_trusted(need, store));
  EXPECT_TRUE(is_trusted(need, store, {session_token(need.subjects[1])}));
  store.allow(need.subjects[1]);
  EXPECT_TRUE(is_trusted(need, store));
}

// A PEFT config naming its base model by id needs no project file; the only thing that would
// run is the interpreter, and a .venv shipped in the repository is the repository's choice.
TEST(Consent, AConfigNamedModelNeedsConsentOnlyForTheRepositorysInterpreter) {
  TempDir dir;
  std::string hub = dir.write("hf/hub/models--org--tiny/snapshots/r1/config.json", "{}");
  dir.write("hf/hub/models--org--tiny/refs/main", "r1");
  (void)hub;
  ::setenv("HF_HUB_CACHE", (dir.path / "hf" / "hub").c_str(), 1);
  ::unsetenv("VIRTUAL_ENV");
  std::string config = dir.write("repo/adapter_config.json", "{}");
  project::ConfigHints hints;
  hints.model = "org/tiny";
  auto resolve = [&] { return project::resolve_model(config, hints, {}, ""); };

  project::Resolution without_venv = resolve();
  ASSERT_TRUE(without_venv.model) << without_venv.problem;
  EXPECT_FALSE(consent_needed(without_venv, {}, false, "").needed()); // python3 on PATH

  dir.write("repo/.venv/bin/python", "#!/bin/sh\ntouch /tmp/pwned\n");
  project::Resolution with_venv = resolve();
  Need need = consent_needed(with_venv, {}, false, "");
  ASSERT_TRUE(need.needed());
  EXPECT_EQ(need.what_would_run(),
            "adapter_config.json names a Hugging Face model (hf:org/tiny) that opscope would "
            "build with the repository's .venv/bin/python");
  ::unsetenv("HF_HUB_CACHE");
}

} // namespace
} // namespace opscope::trust
