// reread_after_local_edit must give exactly what a full read gives, for every edit it
// accepts: checked over thousands of random keystrokes in real configs.
#include "opscope/coreai/config/document.h"
#include "opscope/coreai/config/local_edit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace opscope::config;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string show(const Range& r) {
  return std::to_string(r.start.line) + ":" + std::to_string(r.start.byte_col) + "-" +
         std::to_string(r.end.line) + ":" + std::to_string(r.end.byte_col);
}

// Every field read_config fills, as text, so a mismatch shows where.
std::string dump(const ConfigDocument& d) {
  std::ostringstream o;
  o << "format " << static_cast<int>(d.format) << " root " << static_cast<int>(d.root) << " "
    << show(d.root_range) << " mode " << d.execution_mode.value_or("-") << " "
    << show(d.execution_mode_range) << " text " << d.text.size() << "\n";
  for (const PatternKey& k : d.keys) {
    o << "key " << static_cast<int>(k.table) << " scope " << static_cast<int>(k.scope.kind) << " "
      << k.scope.key << " " << show(k.scope.key_range) << " [" << k.text << "] " << show(k.range)
      << " q" << k.quoted << static_cast<int>(k.quote) << " a" << k.via_alias << " cols";
    for (int c : k.byte_cols)
      o << " " << c;
    o << "\n";
  }
  for (const DuplicateKey& k : d.duplicates)
    o << "dup " << k.key << " " << show(k.first) << " " << show(k.duplicate) << "\n";
  for (const SyntaxProblem& p : d.problems)
    o << "problem " << show(p.range) << " " << p.code << " " << p.message << "\n";
  for (const UnknownField& u : d.unknown_fields) {
    o << "unknown " << u.name << " " << show(u.range) << " " << u.where;
    for (const auto& v : u.valid)
      o << " " << v;
    o << "\n";
  }
  return o.str();
}

// A generated config in the shape of bench/config_scale.py, with every kind of key: single
// and double quotes, plain keys, escapes, op tables nested under pattern keys, aliases.
std::string generated_config() {
  std::string text = "quantization_spec:\n  w8: &w8\n    dtype: int8\n"
                     "  shared: &shared\n    op_name_config:\n      'conv2d_1': *w8\n"
                     "quantization_config:\n  execution_mode: graph\n  global_config:\n"
                     "    op_state_spec: *w8\n    op_type_config:\n      linear: null\n"
                     "  module_type_configs:\n    torch.nn.modules.conv.Conv2d:\n"
                     "      op_name_config:\n        \"conv2d_[0-9]+\": *w8\n"
                     "  module_name_configs:\n";
  for (int i = 0; i < 60; ++i) {
    std::string name = "layer1\\." + std::to_string(i % 8) + "\\.conv(_" + std::to_string(i) + ")?";
    if (i % 3 == 0)
      text += "    '" + name + "':\n      op_state_spec: *w8\n";
    else if (i % 3 == 1)
      text += "    \"layer1\\\\." + std::to_string(i) + "\": {op_state_spec: *w8}\n";
    else
      text += "    layer2.conv" + std::to_string(i) +
              ":\n      <<: *shared\n"
              "      op_name_config:\n        'relu_" +
              std::to_string(i) + "': null\n";
  }
  text += "    'layer1\\.0\\.conv(_0)?': null\n"; // a duplicate
  return text;
}

struct Stats {
  int edits = 0;
  int reused = 0;
};

// Random keystrokes, mostly inside keys (where reuse applies), some anywhere; a third of them
// bytes that end keys, escape, or break lines. Every few edits the typing starts over from the
// original text, so a document does not decay into one long syntax error.
void type_randomly(const std::string& name, const std::string& original, Format format, int edits,
                   std::mt19937& rng, Stats& stats) {
  static const std::vector<std::string> kKeyText = {"a",  "Z", "7", ".", "\\",     "_",  "(",
                                                    ")?", "*", "-", "é", "[0-9]+", "\\."};
  static const std::vector<std::string> kStructural = {"'",  "\"",   ":",  " ",  "#",  "\n",
                                                       "&",  "\t",   ": ", "{",  "''", "\\\\",
                                                       "\r", "\x1f", "!",  "<<", ","};
  std::string text = original;
  ConfigDocument previous = read_config(text, format);
  for (int n = 0; n < edits; ++n) {
    if (rng() % 8 == 0) {
      text = original;
      previous = read_config(text, format);
    }
    std::size_t at;
    if (!previous.keys.empty() && rng() % 5 != 0) {
      const PatternKey& key = previous.keys[rng() % previous.keys.size()];
      std::size_t line_start = 0;
      for (int l = 0, i = 0; l < key.range.start.line; ++i)
        if (previous.text[static_cast<std::size_t>(i)] == '\n') {
          ++l;
          line_start = static_cast<std::size_t>(i) + 1;
        }
      int span = std::max(1, key.range.end.byte_col - key.range.start.byte_col + 1);
      at = line_start + static_cast<std::size_t>(key.range.start.byte_col) + rng() % span;
    } else {
      at = rng() % (text.size() + 1);
    }
    at = std::min(at, text.size());
    switch (rng() % 3) {
    case 0:
      text.insert(at, kKeyText[rng() % kKeyText.size()]);
      break;
    case 1:
      text.insert(at, rng() % 2 ? kKeyText[rng() % kKeyText.size()]
                                : kStructural[rng() % kStructural.size()]);
      break;
    default:
      text.erase(at, 1 + rng() % 2);
    }
    ++stats.edits;
    std::optional<ConfigDocument> reused = reread_after_local_edit(previous, text);
    ConfigDocument fresh = read_config(text, format);
    ConfigDocument in_place = previous;
    ASSERT_EQ(patch_after_local_edit(in_place, text), reused.has_value());
    if (reused) {
      ++stats.reused;
      ASSERT_EQ(dump(*reused), dump(fresh)) << name << ", edit " << n << " at byte " << at;
      ASSERT_EQ(dump(in_place), dump(fresh)) << name << ", edit " << n << " at byte " << at;
    } else {
      ASSERT_EQ(dump(in_place), dump(previous)); // refused: left as it was
    }
    previous = std::move(fresh);
  }
}

} // namespace

TEST(LocalEdit, MatchesAFullReadOverRandomEditsOfRealConfigs) {
  std::vector<std::pair<std::string, std::string>> configs = {{"generated", generated_config()}};
  fs::path root(OPSCOPE_SOURCE_DIR);
  for (const char* dir : {"tests/fuzz/corpus/config_yaml", "tests/fuzz/corpus/config_json"})
    for (const auto& entry : fs::directory_iterator(root / dir))
      configs.emplace_back(entry.path().filename().string(), read_file(entry.path()));
  configs.emplace_back("examples/resnet/quant.yaml",
                       read_file(root / "examples/resnet/quant.yaml"));
  ASSERT_GT(configs.size(), 10u);
  std::mt19937 rng(14);
  Stats stats;
  for (const auto& [name, text] : configs)
    for (int run = 0; run < 2; ++run) {
      type_randomly(name, text, guess_format(name, text), 300, rng, stats);
      if (HasFatalFailure())
        return;
    }
  // The check above is only worth something if many edits were taken the fast way.
  std::cout << stats.reused << " of " << stats.edits << " edits reused the previous read\n";
  EXPECT_GT(stats.reused, stats.edits / 20);
}

TEST(LocalEdit, TypingInsideAQuotedKeyReusesThePreviousRead) {
  std::string before = "quantization_config:\n  module_name_configs:\n    'layer1':\n"
                       "      op_name_config:\n        'conv': null\n";
  ConfigDocument previous = read_config(before, Format::Yaml);
  std::string after = before;
  after.insert(before.find("1'"), "\\.0"); // 'layer\.01'
  auto reused = reread_after_local_edit(previous, after);
  ASSERT_TRUE(reused);
  EXPECT_EQ(dump(*reused), dump(read_config(after, Format::Yaml)));
  ASSERT_EQ(reused->keys.size(), 2u);
  EXPECT_EQ(reused->keys[0].text, "layer\\.01");
  EXPECT_EQ(reused->keys[1].scope.key, "layer\\.01"); // the nested key's scope follows
}

TEST(LocalEdit, EditsThatChangeStructureAreReadAgain) {
  std::string before = "quantization_config:\n  module_name_configs:\n    'layer1': null\n"
                       "    layer2: null\n";
  ConfigDocument previous = read_config(before, Format::Yaml);
  auto edited = [&](std::size_t at, const std::string& typed) {
    std::string after = before;
    after.insert(at, typed);
    return reread_after_local_edit(previous, after);
  };
  std::size_t quoted = before.find("layer1"), plain = before.find("layer2");
  EXPECT_FALSE(edited(quoted + 2, "'"));           // closes the quote early
  EXPECT_FALSE(edited(quoted + 2, "\n"));          // splits the line
  EXPECT_FALSE(edited(plain + 2, ": "));           // ends the plain key
  EXPECT_FALSE(edited(plain + 2, " #"));           // starts a comment
  EXPECT_FALSE(edited(plain, "*"));                // an alias at the key's start
  EXPECT_FALSE(edited(before.find("quant"), "x")); // not a pattern key
  std::string duplicate = before;
  duplicate[quoted + 5] = '2'; // 'layer2', as the plain key below
  EXPECT_FALSE(reread_after_local_edit(previous, duplicate));
  EXPECT_TRUE(edited(plain + 2, "y"));
  EXPECT_TRUE(edited(quoted + 6, "\\.0"));
}
