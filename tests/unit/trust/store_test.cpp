#include "opscope/trust/store.h"

#include "temp_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sys/stat.h>

namespace opscope::trust {
namespace {

using testing::TempDir;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Store, TrustsOnlyTheContentItWasGiven) {
  TempDir dir;
  std::string project = dir.write("repo/opscope.yaml", "model: model.py:build\n");
  Store store((dir.path / "config/opscope/trusted.json").string());
  Subject subject = *project_file_subject(project, "model.py:build with python3");
  EXPECT_FALSE(store.trusts(subject)); // no store yet: nothing is trusted
  store.allow(subject);
  EXPECT_TRUE(store.trusts(*project_file_subject(project, "")));

  // One byte more: a different file, no longer trusted.
  dir.write("repo/opscope.yaml", "model: model.py:build\npython: tools/evil.sh\n");
  EXPECT_FALSE(store.trusts(*project_file_subject(project, "")));
  // Restoring the exact content restores the consent: it is for that content.
  dir.write("repo/opscope.yaml", "model: model.py:build\n");
  EXPECT_TRUE(store.trusts(*project_file_subject(project, "")));
}

TEST(Store, IsOwnerOnlyAndListsEntries) {
  TempDir dir;
  std::string project = dir.write("repo/opscope.yaml", "model: m.py:f\n");
  std::string file = (dir.path / "config/opscope/trusted.json").string();
  Store store(file);
  store.allow(*project_file_subject(project, "m.py:f with python3"));
  EXPECT_EQ(mode_of(file), 0600u);
  EXPECT_EQ(mode_of((dir.path / "config/opscope").string()), 0700u);
  auto entries = store.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].key, project);
  EXPECT_EQ(entries[0].runs, "m.py:f with python3");
  EXPECT_EQ(entries[0].sha256, sha256_hex("model: m.py:f\n"));
  EXPECT_FALSE(entries[0].trusted_at.empty());
}

TEST(Store, IgnoresAStoreOthersCanWrite) {
  TempDir dir;
  std::string project = dir.write("repo/opscope.yaml", "model: m.py:f\n");
  std::string file = (dir.path / "trusted.json").string();
  Store store(file);
  Subject subject = *project_file_subject(project, "");
  store.allow(subject);
  ASSERT_TRUE(store.trusts(subject));
  ::chmod(file.c_str(), 0666); // anyone could add their own project
  EXPECT_FALSE(store.trusts(subject));
  EXPECT_NE(store.problem().find("writable by others"), std::string::npos) << store.problem();
  EXPECT_THROW(store.allow(subject), StoreError); // never rewritten over a store it ignored
}

TEST(Store, MalformedStoreTrustsNothingAndIsNotOverwritten) {
  TempDir dir;
  std::string file = dir.write("trusted.json", "{\"trusted\": [1, 2");
  ::chmod(file.c_str(), 0600);
  Store store(file);
  Subject subject{"/w/opscope.yaml", sha256_hex("x"), ""};
  EXPECT_FALSE(store.trusts(subject));
  EXPECT_NE(store.problem().find("not an opscope trust store"), std::string::npos);
  try {
    store.allow(subject);
    FAIL() << "allow() overwrote a store it could not read";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
}

TEST(Store, RevokeForgetsOneKey) {
  TempDir dir;
  Store store((dir.path / "trusted.json").string());
  Subject a{"/a/opscope.yaml", sha256_hex("a"), ""};
  Subject b{"/b/opscope.yaml", sha256_hex("b"), ""};
  store.allow(a);
  store.allow(b);
  EXPECT_TRUE(store.revoke(a.key));
  EXPECT_FALSE(store.revoke(a.key));
  EXPECT_FALSE(store.trusts(a));
  EXPECT_TRUE(store.trusts(b));
}

TEST(Store, EditorSettingsDigestCoversWhatRuns) {
  Subject base = editor_settings_subject("/w", "model.py:build", "/w/.venv/bin/python", {}, "");
  EXPECT_EQ(base.key, "editor-settings:/w");
  EXPECT_EQ(base.sha256,
            editor_settings_subject("/w", "model.py:build", "/w/.venv/bin/python", {}, "x").sha256);
  EXPECT_NE(base.sha256,
            editor_settings_subject("/w", "model.py:build", "/w/tools/evil.sh", {}, "").sha256);
  EXPECT_NE(
      base.sha256,
      editor_settings_subject("/w", "model.py:build", "/w/.venv/bin/python", {"1x3"}, "").sha256);
  EXPECT_NE(base.key,
            editor_settings_subject("/v", "model.py:build", "/w/.venv/bin/python", {}, "").key);
}

TEST(Store, DefaultFileFollowsXdgConfigHome) {
  const char* saved = std::getenv("XDG_CONFIG_HOME");
  std::string restore = saved ? saved : "";
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "/";
  ::setenv("XDG_CONFIG_HOME", "/somewhere/config", 1);
  EXPECT_EQ(Store::default_file(), "/somewhere/config/opscope/trusted.json");
  ::setenv("XDG_CONFIG_HOME", "relative/ignored", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(Store::default_file(), "/home/u/.config/opscope/trusted.json");
  if (saved)
    ::setenv("XDG_CONFIG_HOME", restore.c_str(), 1);
  else
    ::unsetenv("XDG_CONFIG_HOME");
  ::setenv("HOME", home.c_str(), 1);
}

} // namespace
} // namespace opscope::trust
