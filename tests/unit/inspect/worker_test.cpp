// The opscope-inspect command line: exit codes and the one-line error contract.
#include "opscope/index/serialize.h"

#include "fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using opscope::inspect::testing::fixture;
using ::testing::HasSubstr;
using ::testing::StartsWith;

struct WorkerRun {
  int code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

WorkerRun run(const std::string& args) {
  // Per-process names: ctest -j runs these tests side by side.
  auto dir = std::filesystem::temp_directory_path();
  std::string stem = "opscope_inspect_worker_test_" + std::to_string(getpid());
  auto out = dir / (stem + ".out");
  auto err = dir / (stem + ".err");
  std::string command = std::string("'") + OPSCOPE_INSPECT_BIN + "' " + args + " >" + out.string() +
                        " 2>" + err.string();
  int status = std::system(command.c_str());
  WorkerRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

std::string output_path() {
  return (std::filesystem::temp_directory_path() /
          ("opscope_inspect_worker_test_" + std::to_string(getpid()) + ".json"))
      .string();
}

TEST(Worker, WritesTheIndex) {
  std::filesystem::remove(output_path());
  WorkerRun r = run(fixture("mymodel.pt2") + " -o " + output_path());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto index = opscope::index::load_index(output_path());
  EXPECT_EQ(index.model_type(), "fixture_models.MyModel");
  ASSERT_NE(index.find_op("linear_1"), nullptr);
  EXPECT_EQ(index.find_op("linear_1")->type, "linear");
}

TEST(Worker, ExplicitGraphModeAndStdout) {
  WorkerRun r = run("--mode graph " + fixture("mymodel.pt2") + " -o -");
  ASSERT_EQ(r.code, 0) << r.err;
  auto index = opscope::index::from_json_text(r.out, "stdout");
  EXPECT_EQ(index.mode, opscope::index::Mode::Graph);
}

TEST(Worker, UnusableArchiveIsOneLineAndExitOne) {
  for (const char* name : {"state_dict.pt", "torchscript.pt", "truncated.pt2", "notes.txt",
                           "absent.pt2", "schema9.pt2"}) {
    WorkerRun r = run(fixture(name) + " -o " + output_path());
    EXPECT_EQ(r.code, 1) << name;
    EXPECT_THAT(r.err, StartsWith(fixture(name) + ": ")) << name;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "exactly one line: " << r.err;
  }
}

TEST(Worker, UsageErrorsExitTwo) {
  WorkerRun none = run("");
  EXPECT_EQ(none.code, 2);
  EXPECT_THAT(none.err, HasSubstr("no archive given"));
  WorkerRun no_output = run(fixture("mymodel.pt2"));
  EXPECT_EQ(no_output.code, 2);
  EXPECT_THAT(no_output.err, HasSubstr("-o INDEX.json"));
  WorkerRun bad_mode = run(fixture("mymodel.pt2") + " --mode fast -o x.json");
  EXPECT_EQ(bad_mode.code, 2);
  EXPECT_THAT(bad_mode.err, HasSubstr("unknown mode 'fast'"));
  WorkerRun bad_flag = run("--frobnicate");
  EXPECT_EQ(bad_flag.code, 2);
}

TEST(Worker, Help) {
  WorkerRun r = run("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("usage: opscope-inspect ARCHIVE.pt2 [--mode graph|eager]"));
}

} // namespace
