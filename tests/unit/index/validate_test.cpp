// Index files are user input: every reference in one is checked on load, so a hand-edited or
// damaged file is one clear error instead of a crash, a hang or gigabytes of output later
// (issue 14: `modules[1].ops = [-1, 1000000000]` crashed `opscope query`).
#include "model_fixtures.h"
#include "opscope/index/module_inputs.h"
#include "opscope/index/query.h"
#include "opscope/index/serialize.h"
#include "opscope/index/validate.h"
#include "opscope/support/regular_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace opscope::index;
using nlohmann::json;

namespace {

json good_json() {
  return json::parse(to_json_text(opscope::fixtures::my_model_index()));
}

// The loader's message for the edited file, or "" when it loads.
std::string load_error(const json& file, const std::string& origin = "g.json") {
  try {
    Index index = from_json_text(file.dump(), origin);
    QueryEngine engine(index); // what `opscope query` does next: must not crash
    (void)engine.all_ops();
    return "";
  } catch (const IndexFormatError& e) {
    return e.what();
  }
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(IndexValidation, TheFixtureIsValid) {
  EXPECT_EQ(load_error(good_json()), "");
}

TEST(IndexValidation, OpIndicesOutOfRangeAreNamed) {
  json file = good_json();
  file["modules"][1]["ops"] = {-1, 1000000000};
  std::string message = load_error(file);
  EXPECT_EQ(message, "g.json: corrupt index file (module 1 (\"linear1\"): op -1 is out of range "
                     "(9 ops)); re-create it with `opscope index MODEL.pt2 -o g.json`");
  file["modules"][1]["ops"] = {1000000000};
  EXPECT_TRUE(contains(load_error(file), "op 1000000000 is out of range")) << load_error(file);
}

TEST(IndexValidation, AParentChildCycleIsRefused) {
  json file = good_json();
  // linear1 and relu each other's parent and child.
  file["modules"][1]["parent"] = 2;
  file["modules"][1]["children"] = {2};
  file["modules"][2]["parent"] = 1;
  file["modules"][2]["children"] = {1};
  file["modules"][0]["children"] = {3};
  std::string message = load_error(file);
  EXPECT_TRUE(contains(message, "g.json: corrupt index file (module 1 (\"linear1\"): parent 2 does "
                                "not come before it (a cycle, or modules out of order))"))
      << message;
}

TEST(IndexValidation, AChildListedTwiceIsRefused) {
  // Listed twice, every walk of the tree would visit it twice: doubling per level.
  json file = good_json();
  file["modules"][0]["children"] = {1, 1, 2, 3};
  EXPECT_TRUE(contains(load_error(file), "module 0 (\"\"): lists module 1 (\"linear1\") twice"))
      << load_error(file);
}

TEST(IndexValidation, ChildrenMustAgreeWithParents) {
  json file = good_json();
  file["modules"][0]["children"] = {1, 2, 3, 7};
  EXPECT_TRUE(contains(load_error(file), "child 7 is out of range")) << load_error(file);
  file["modules"][0]["children"] = {1, 2, 3, 0};
  EXPECT_TRUE(contains(load_error(file), "child 0 is out of range")) << load_error(file);
  file["modules"][0]["children"] = {1, 2};
  EXPECT_TRUE(contains(load_error(file), "module 3 (\"linear2\"): missing from its parent's"))
      << load_error(file);
  file = good_json();
  file["modules"][1]["children"] = {2};
  EXPECT_TRUE(
      contains(load_error(file), "lists module 2 (\"relu\") as a child, but its parent is 0"))
      << load_error(file);
}

TEST(IndexValidation, OneRootOnly) {
  json file = good_json();
  file["modules"][2]["parent"] = -1;
  EXPECT_TRUE(contains(load_error(file), "module 2 (\"relu\"): a second root")) << load_error(file);
  file = good_json();
  file["modules"][0]["parent"] = 1;
  EXPECT_TRUE(contains(load_error(file), "module 0 is the root and must have parent -1"))
      << load_error(file);
  file = good_json();
  file["modules"] = json::array();
  EXPECT_TRUE(contains(load_error(file), "no root module")) << load_error(file);
  file = good_json();
  file["modules"][3]["parent"] = 99;
  EXPECT_TRUE(contains(load_error(file), "parent 99 is out of range (4 modules)"))
      << load_error(file);
}

TEST(IndexValidation, AnOpOwnedByTwoModulesIsRefused) {
  json file = good_json();
  file["modules"][2]["ops"].push_back(file["modules"][1]["ops"][0]);
  EXPECT_TRUE(contains(load_error(file), "already belongs to module 1 (\"linear1\")"))
      << load_error(file);
}

TEST(IndexValidation, NestingIsBounded) {
  // A chain of modules deeper than any model: the tree walks recurse once per level.
  json file = good_json();
  json modules = json::array();
  const int depth = kMaxModuleDepth + 5;
  for (int m = 0; m <= depth; ++m)
    modules.push_back({{"name", "m" + std::to_string(m)},
                       {"type", "T"},
                       {"parent", m - 1},
                       {"children", m < depth ? json{m + 1} : json::array()},
                       {"ops", json::array()},
                       {"inputs", json::array()},
                       {"outputs", json::array()}});
  file["modules"] = modules;
  EXPECT_TRUE(contains(load_error(file), "module " + std::to_string(kMaxModuleDepth + 1) + " (\"m" +
                                             std::to_string(kMaxModuleDepth + 1) +
                                             "\"): nested more than 256 modules deep"))
      << load_error(file);
}

TEST(IndexValidation, NumbersMustBeSaneAndMessagesOneLine) {
  json file = good_json();
  file["ops"][5]["compressors"] = 300;
  EXPECT_TRUE(contains(load_error(file), "not a set of compressor bits")) << load_error(file);
  // Names from the file stay on one line in the message.
  file = good_json();
  file["modules"][1]["name"] = "evil\nname";
  file["modules"][1]["ops"] = {-1};
  EXPECT_TRUE(contains(load_error(file), "module 1 (\"evil?name\")")) << load_error(file);
  EXPECT_FALSE(contains(load_error(file), "\n")) << load_error(file);
}

TEST(IndexValidation, LoadIndexNamesTheFile) {
  auto dir =
      std::filesystem::temp_directory_path() / ("opscope-validate-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  json file = good_json();
  file["modules"][1]["ops"] = {-1, 1000000000};
  std::string path = (dir / "g.json").string();
  std::ofstream(path) << file.dump();
  try {
    load_index(path);
    FAIL() << "expected an error";
  } catch (const IndexFormatError& e) {
    EXPECT_TRUE(contains(e.what(), path + ": corrupt index file (module 1")) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(IndexValidation, NonRegularFilesAreRefusedWithoutBlocking) {
  auto dir = std::filesystem::temp_directory_path() / ("opscope-fifo-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string fifo = (dir / "g.json").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  try {
    load_index(fifo);
    FAIL() << "expected an error";
  } catch (const IndexFormatError& e) {
    EXPECT_EQ(std::string(e.what()),
              fifo + ": is a named pipe (FIFO), not a regular file; give the file itself");
  }
  EXPECT_FALSE(looks_like_index_file(fifo));
  EXPECT_THROW(opscope::support::read_regular_file(fifo, 100), opscope::support::FileReadError);
  EXPECT_THROW(load_index(dir.string()), IndexFormatError);
  EXPECT_THROW(opscope::support::read_regular_file("/dev/zero", 100),
               opscope::support::FileReadError);
  std::printf("refusing a FIFO took %.3f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  std::filesystem::remove_all(dir);
}

// Found by the index_reader fuzzer: an op with an empty module stack (valid structure, odd
// content) made `opscope inputs` read past an empty vector.
TEST(IndexValidation, AnOpWithoutAModuleStackBelongsToTheRoot) {
  json file = good_json();
  file["ops"][6]["stack"] = json::array();                                   // "relu"
  file["modules"][0]["inputs"] = json::parse(R"([[0, [["linear_1", 0]]]])"); // fed by relu
  Index index = from_json_text(file.dump(), "g.json");
  auto inputs = module_inputs(index, "");
  ASSERT_TRUE(inputs.has_value());
  ASSERT_EQ(inputs->size(), 1u);
  ASSERT_EQ(inputs->front().origins.size(), 1u);
  EXPECT_EQ(inputs->front().origins[0].op, "relu");
  EXPECT_EQ(inputs->front().origins[0].module.name, "");
}
