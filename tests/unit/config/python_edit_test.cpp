// An edit elsewhere in a Python file keeps its read (python_edit.cpp): whenever the patch is
// taken, it must equal reading the edited text again.
#include "opscope/coreai/config/document.h"
#include "opscope/coreai/config/local_edit.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

using namespace opscope::config;

namespace {

std::string load(const std::string& name) {
  std::ifstream in(std::string(OPSCOPE_SOURCE_DIR) + "/tests/data/python_configs/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_same(const ConfigDocument& patched, const ConfigDocument& read,
                 const std::string& what) {
  ASSERT_EQ(patched.text, read.text) << what;
  ASSERT_EQ(patched.root, read.root) << what;
  ASSERT_EQ(patched.root_range, read.root_range) << what;
  ASSERT_EQ(patched.keys.size(), read.keys.size()) << what;
  for (std::size_t i = 0; i < read.keys.size(); ++i) {
    ASSERT_EQ(patched.keys[i].text, read.keys[i].text) << what;
    ASSERT_EQ(patched.keys[i].range, read.keys[i].range) << what << " key " << read.keys[i].text;
    ASSERT_EQ(patched.keys[i].table, read.keys[i].table) << what;
    ASSERT_EQ(patched.keys[i].scope, read.keys[i].scope) << what;
    ASSERT_EQ(patched.keys[i].scope.key_range, read.keys[i].scope.key_range) << what;
    ASSERT_EQ(patched.keys[i].null_value, read.keys[i].null_value) << what;
  }
  ASSERT_EQ(patched.unchecked.size(), read.unchecked.size()) << what;
  for (std::size_t i = 0; i < read.unchecked.size(); ++i)
    ASSERT_EQ(patched.unchecked[i].range, read.unchecked[i].range) << what;
  ASSERT_EQ(patched.unknown_fields.size(), read.unknown_fields.size()) << what;
  ASSERT_EQ(patched.duplicates.size(), read.duplicates.size()) << what;
  // config_lines may differ: a syntax error typed elsewhere can regroup the statements around a
  // config call without changing what the reader finds in it.
}

} // namespace

TEST(PythonEdit, AnEditElsewhereKeepsTheReadExactly) {
  // What a person types in code: words, operators, brackets, quotes, line breaks, comments.
  const std::vector<std::string> typed = {"x",      " ",      "=", "(",  ")",    "\"", "'",
                                          "\n",     "\n    ", "#", "[",  "]",    "{",  "}",
                                          "\"\"\"", "\\",     "r", "f(", "x = 1"};
  std::mt19937 rng(12);
  std::size_t patched = 0, total = 0;
  for (const char* file : {"train_llama_w4.py", "palettize_resnet.py", "prune_bert.py"}) {
    std::string text = load(file);
    ConfigDocument doc = read_config(text, Format::Python);
    for (int step = 0; step < 600; ++step) {
      std::string edited = doc.text;
      // Anywhere, or (half the time) in the code below the configs, where most typing is.
      std::size_t below = edited.find("\ndef ", edited.size() / 2);
      if (below == std::string::npos)
        below = edited.size() / 2;
      std::size_t at =
          rng() % 2 ? rng() % (edited.size() + 1) : below + rng() % (edited.size() - below + 1);
      if (rng() % 4 == 0 && at < edited.size())
        edited.erase(at, 1 + rng() % 3);
      else
        edited.insert(at, typed[rng() % typed.size()]);
      ConfigDocument read = read_config(edited, Format::Python);
      std::optional<ConfigDocument> patch = reread_after_local_edit(doc, edited);
      ++total;
      if (patch) {
        ++patched;
        expect_same(*patch, read,
                    std::string(file) + " edit at " + std::to_string(at) + ":\n" + doc.text +
                        "\n---- became ----\n" + edited);
        if (::testing::Test::HasFatalFailure())
          return;
      }
      // Keep typing into the edited file now and then, back to the original otherwise.
      doc = step % 3 == 0 ? std::move(read) : read_config(text, Format::Python);
    }
  }
  std::printf("%zu of %zu edits kept the previous read\n", patched, total);
  EXPECT_GT(patched, total / 10);
}

TEST(PythonEdit, AnEditInAConfigCallIsReadAgain) {
  std::string text = "import coreai_opt\nc = QuantizerConfig(module_name_configs={'a': None})\n"
                     "x = 1\n";
  ConfigDocument doc = read_config(text, Format::Python);
  std::string edited = text;
  edited.insert(edited.find("'a'") + 2, "b");
  EXPECT_FALSE(reread_after_local_edit(doc, edited));
  // Elsewhere: kept, and so are the key's positions.
  edited = "# setup\n" + text;
  EXPECT_FALSE(reread_after_local_edit(doc, edited)); // its lines hold the import: read again
  edited = text + "y = 2\n";
  std::optional<ConfigDocument> kept = reread_after_local_edit(doc, edited);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->keys.size(), 1u);
  // A string or bracket opened below every config cannot reach back into one.
  for (const char* tail : {"y = (\n", "y = \"\"\"\n", "def f(:\n"}) {
    std::optional<ConfigDocument> below = reread_after_local_edit(doc, text + tail);
    ASSERT_TRUE(below) << tail;
    EXPECT_EQ(below->keys.size(), read_config(text + tail, Format::Python).keys.size()) << tail;
  }
  // Above a config, the same edit may swallow it: read again.
  EXPECT_FALSE(reread_after_local_edit(doc, "y = (\n" + text));
}
