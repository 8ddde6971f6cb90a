// Which schema checks a config: the dump for the coreai-opt version installed next to the
// project's interpreter (a fake second version here), else the built-in 0.4.0 copy.
#include "opscope/schema/check.h"
#include "schema_source.h"

#include "opscope/project/project.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace opscope::dialects::coreai {
namespace {
namespace fs = std::filesystem;

// The schema a config of a project resolved as `r` is checked against.
std::shared_ptr<const schema::Schema> schema_for(const project::Resolution& r) {
  return choose_schema(r.model ? r.model->python : std::string()).schema;
}

class SchemaSource : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("opscope-schema-source-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "cache");
    setenv("XDG_CACHE_HOME", (root_ / "cache").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("XDG_CACHE_HOME");
    if (saved_path_)
      setenv("PATH", saved_path_->c_str(), 1);
    if (saved_home_)
      setenv("HOME", saved_home_->c_str(), 1);
    fs::remove_all(root_);
  }
  // A venv whose coreai-opt is `version`; returns its interpreter.
  std::string venv(const std::string& name, const std::string& version) {
    fs::path site = root_ / name / "lib" / "python3.11" / "site-packages";
    fs::create_directories(site / ("coreai_opt-" + version + ".dist-info"));
    fs::create_directories(root_ / name / "bin");
    std::ofstream(root_ / name / "pyvenv.cfg") << "home = /usr/bin\n";
    return (root_ / name / "bin" / "python").string();
  }
  static project::Resolution with_python(const std::string& python) {
    project::Resolution r;
    r.model.emplace();
    r.model->python = python;
    return r;
  }
  // An interpreter installed as Debian installs one: usr/bin/python3 -> python3.11, PATH and
  // HOME pointing into the test's folder. Returns usr/.
  fs::path system_python() {
    if (const char* p = std::getenv("PATH"))
      saved_path_ = p;
    if (const char* h = std::getenv("HOME"))
      saved_home_ = h;
    fs::path usr = root_ / "usr";
    fs::create_directories(usr / "bin");
    fs::create_directories(usr / "lib" / "python3.11");
    std::ofstream(usr / "bin" / "python3.11") << "#!/bin/sh\n";
    fs::permissions(usr / "bin" / "python3.11", fs::perms::owner_all);
    fs::create_symlink("python3.11", usr / "bin" / "python3");
    setenv("PATH", (usr / "bin").c_str(), 1);
    setenv("HOME", (root_ / "home").c_str(), 1);
    return usr;
  }
  fs::path root_;
  std::optional<std::string> saved_path_, saved_home_;
};

// A fake coreai-opt 9.9.9 whose spec takes `dtype: int9` (0.4.0 refuses it).
constexpr const char* kFakeDump = R"({"format": "opscope-coreai-schema/1", "coreai_opt": "9.9.9",
  "roots": {"quantization_config": {"model": "Q", "spec_key": "quantization_spec"}},
  "models": {
    "Q": {"forbid": true, "fields": [{"name": "global_config", "type": {"kind": "model", "model": "M"}}]},
    "M": {"forbid": true, "fields": [{"name": "op_state_spec", "type": {"kind": "dict",
          "key": {"kind": "str"}, "value": {"kind": "model", "model": "S"}}}]},
    "S": {"forbid": true, "fields": [{"name": "dtype", "type": {"kind": "enum", "values": ["int9"]}}]}}})";

constexpr const char* kConfig =
    "quantization_config:\n  global_config:\n    op_state_spec:\n      weight: {dtype: int9}\n";

std::size_t errors(const project::Resolution& r) {
  auto doc = config::read_config(kConfig, config::Format::Yaml);
  return schema::check(doc, *schema_for(r)).size();
}

TEST_F(SchemaSource, TheInstalledVersionIsReadFromTheVenvWithoutRunningIt) {
  EXPECT_EQ(installed_coreai_opt(venv("a", "9.9.9")), "9.9.9");
  EXPECT_EQ(installed_coreai_opt((root_ / "none" / "bin" / "python").string()), std::nullopt);
  EXPECT_EQ(installed_coreai_opt(""), std::nullopt);
}

TEST_F(SchemaSource, ADifferentVersionGetsItsOwnDumpFromTheCache) {
  std::string python = venv("new", "9.9.9");
  fs::create_directories(fs::path(schema_cache_path("9.9.9")).parent_path());
  std::ofstream(schema_cache_path("9.9.9")) << kFakeDump;
  auto r = with_python(python);
  EXPECT_EQ(schema_for(r)->coreai_opt_version, "9.9.9");
  EXPECT_EQ(errors(r), 0u); // 9.9.9 takes int9
  // The same config under a 0.4.0 venv, or with no interpreter: the built-in copy refuses it.
  EXPECT_EQ(schema_for(with_python(venv("old", "0.4.0")))->coreai_opt_version, "0.4.0");
  EXPECT_EQ(errors(with_python(venv("old2", "0.4.0"))), 1u);
  EXPECT_EQ(errors(project::Resolution{}), 1u);
}

TEST_F(SchemaSource, AnInterpreterOutsideAVenvIsReadWherePythonFindsItsPackages) {
  fs::path usr = system_python();
  // `python3` (the default without a .venv) is found on PATH and its symlink followed; pip
  // installed coreai-opt into /usr/local/lib/python3.11/dist-packages.
  fs::create_directories(usr / "local/lib/python3.11/dist-packages/coreai_opt-6.6.6.dist-info");
  EXPECT_EQ(installed_coreai_opt("python3"), "6.6.6");
  std::string dump = kFakeDump;
  dump.replace(dump.find("9.9.9"), 5, "6.6.6");
  fs::create_directories(fs::path(schema_cache_path("6.6.6")).parent_path());
  std::ofstream(schema_cache_path("6.6.6")) << dump;
  EXPECT_EQ(schema_for(with_python("python3"))->coreai_opt_version, "6.6.6");
  EXPECT_EQ(errors(with_python("python3")), 0u); // its own dump, not the built-in copy
  // `pip install --user` wins, as on Python's own path; a venv sees neither.
  fs::create_directories(root_ /
                         "home/.local/lib/python3.11/site-packages/coreai_opt-5.5.5.dist-info");
  EXPECT_EQ(installed_coreai_opt((usr / "bin" / "python3").string()), "5.5.5");
  EXPECT_EQ(installed_coreai_opt(venv("v", "4.4.4")), "4.4.4");
  EXPECT_EQ(installed_coreai_opt("no-such-python"), std::nullopt);
}

TEST_F(SchemaSource, WithoutADumpOrWithADamagedOneTheBuiltinCopyServes) {
  auto r = with_python(venv("nodump", "7.0.0"));
  EXPECT_EQ(schema_for(r)->coreai_opt_version, "0.4.0");
  std::string python = venv("damaged", "8.0.0");
  fs::create_directories(fs::path(schema_cache_path("8.0.0")).parent_path());
  std::ofstream(schema_cache_path("8.0.0")) << "{not json";
  EXPECT_EQ(schema_for(with_python(python))->coreai_opt_version, "0.4.0");
}

} // namespace
} // namespace opscope::dialects::coreai
