// The Python reader on every prefix and every one-byte deletion of the reference docs'
// examples and of three training scripts: what an editor sends while a file is typed or
// edited. Each read must finish, and what it reports must point inside the text.
#include "opscope/coreai/config/context.h"
#include "opscope/coreai/config/document.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace opscope::config;

namespace {

std::string load(const std::string& name) {
  std::ifstream in(std::string(OPSCOPE_SOURCE_DIR) + "/tests/data/python_configs/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::size_t> line_lengths(const std::string& text) {
  std::vector<std::size_t> lengths(1, 0);
  for (char c : text)
    if (c == '\n')
      lengths.push_back(0);
    else
      ++lengths.back();
  return lengths;
}

// Every range the read reports lies in the text; every key maps each character to a column.
void expect_sound(const ConfigDocument& doc, const std::string& what) {
  std::vector<std::size_t> lines = line_lengths(doc.text);
  auto inside = [&](const Range& r) {
    auto in = [&](Position p) {
      return p.line >= 0 && static_cast<std::size_t>(p.line) < lines.size() && p.byte_col >= 0 &&
             static_cast<std::size_t>(p.byte_col) <= lines[static_cast<std::size_t>(p.line)];
    };
    return in(r.start) && in(r.end) && r.start <= r.end;
  };
  for (const PatternKey& k : doc.keys) {
    ASSERT_TRUE(inside(k.range)) << what << ": key " << k.text;
    ASSERT_EQ(k.byte_cols.size(), k.text.size() + 1) << what << ": key " << k.text;
  }
  for (const UncheckedName& u : doc.unchecked)
    ASSERT_TRUE(inside(u.range)) << what;
  for (const UnknownField& u : doc.unknown_fields)
    ASSERT_TRUE(inside(u.range)) << what;
  for (const DuplicateKey& d : doc.duplicates)
    ASSERT_TRUE(inside(d.first) && inside(d.duplicate)) << what;
  if (doc.root != Compressor::None) {
    ASSERT_TRUE(inside(doc.root_range)) << what;
  }
}

Position position_of(const std::string& text, std::size_t offset) {
  Position p;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') {
      ++p.line;
      p.byte_col = 0;
    } else {
      ++p.byte_col;
    }
  return p;
}

struct Sample {
  const char* file;
  std::size_t keys; // in the whole file
};

class PythonRobustness : public ::testing::TestWithParam<Sample> {};

TEST_P(PythonRobustness, EveryPrefixAndOneByteDeletionReadsSafely) {
  std::string text = load(GetParam().file);
  ASSERT_FALSE(text.empty()) << GetParam().file;
  ConfigDocument whole = read_config(text, Format::Python);
  EXPECT_EQ(whole.keys.size(), GetParam().keys) << GetParam().file;
  expect_sound(whole, GetParam().file);
  std::size_t served = 0;
  for (std::size_t n = 0; n <= text.size(); ++n) {
    ConfigDocument doc = read_config(text.substr(0, n), Format::Python);
    expect_sound(doc, std::string(GetParam().file) + " prefix " + std::to_string(n));
    served += doc.root != Compressor::None;
    // Completion where the user stops typing (sampled: each is two more reads).
    if (n % 97 == 0) {
      CursorContext ctx = context_at(doc, position_of(doc.text, n));
      if (ctx.kind == CursorContext::Kind::PatternKey) {
        ASSERT_LE(ctx.replace.start, ctx.replace.end);
      }
    }
  }
  EXPECT_GT(served, text.size() / 2) << "most prefixes hold a config";
  for (std::size_t at = 0; at < text.size(); ++at) {
    std::string edited = text;
    edited.erase(at, 1);
    ConfigDocument doc = read_config(edited, Format::Python);
    expect_sound(doc, std::string(GetParam().file) + " without byte " + std::to_string(at));
  }
}

INSTANTIATE_TEST_SUITE_P(Files, PythonRobustness,
                         ::testing::Values(Sample{"reference_quantizer.py", 25},
                                           Sample{"reference_palettizer.py", 4},
                                           Sample{"train_llama_w4.py", 12},
                                           Sample{"palettize_resnet.py", 11},
                                           Sample{"prune_bert.py", 8}),
                         [](const auto& info) {
                           std::string name = info.param.file;
                           return name.substr(0, name.find('.'));
                         });

} // namespace
