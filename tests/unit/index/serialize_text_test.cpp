// The index file's text: every name survives a save and load byte for byte (quotes,
// backslashes, control characters, non-ASCII), the file stays valid JSON whatever the names
// hold, files written by earlier opscope releases (keys in another order) still load, and
// a damaged, foreign or newer file gets a message saying which and what to do.
#include "opscope/index/serialize.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace opscope::index;
using namespace std::string_literals;

namespace {

// Every byte 0x01..0x1f and 0x7f, plus an embedded NUL: the JSON escapes all of them.
std::string control_characters() {
  std::string text("\0"s);
  for (char c = 1; c < 0x20; ++c)
    text.push_back(c);
  text.push_back('\x7f');
  return text;
}

const std::string kQuoted = "layers.0.\"attn\"\\proj/\\u0041";
const std::string kNonAscii =
    "caf\xC3\xA9.\xE4\xB8\xAD\xE6\x96\x87.\xF0\x9F\x98\x80"; // café.中文.😀

Index odd_names_index() {
  Index index;
  index.mode = Mode::Eager;
  index.provenance = {"/tmp/m\xC3\xB6"
                      "del \"v2\".pt2",
                      "ab12",
                      "2.13.0+cpu",
                      {"/src/model.py", "C:\\models\\m.py"},
                      "torch.export cannot trace it: \"multinomial\""};
  index.modules.push_back(
      {"", "m.My\tModel", -1, {1}, {}, {{0, {{kQuoted, 0}}}}, {{0, {kNonAscii, 1}}}});
  index.modules.push_back({kQuoted, "m.\"Quoted\"", 0, {}, {1, 2}, {{3, {}}}, {}});
  Op input{"x", "", OpKind::Input, {}, {}, {}, {{0, {kQuoted, kNonAscii}}}, 0};
  Op quoted{kQuoted,
            "add_",
            OpKind::Call,
            {{"", "m.My\tModel"}, {kQuoted, "m.\"Quoted\""}},
            {{"/src/model.py", 13, "forward", "x = self.f(x)  # \"tab\"\there"},
             {"C:\\models\\m.py", -1, control_characters(), kNonAscii}},
            {{"x", 0, false}, {"w" + control_characters(), std::nullopt, true}},
            {{0, {kNonAscii}}, {2, {}}},
            static_cast<std::uint8_t>(Compressor::Quantizer) |
                static_cast<std::uint8_t>(Compressor::MagnitudePruner)};
  Op non_ascii{kNonAscii, kNonAscii, OpKind::Output, {{"", "m.My\tModel"}}, {}, {{kQuoted, 0}},
               {},        0};
  Op state{control_characters(), "", OpKind::State, {}, {}, {}, {}, 0};
  index.ops = {input, quoted, non_ascii, state};
  index.compressor_types[kQuoted] = {{Compressor::Quantizer, "add"},
                                     {Compressor::KMeansPalettizer, "a\"dd"}};
  index.rebuild_lookups();
  return index;
}

void expect_same_ops(const Op& a, const Op& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.module_stack, b.module_stack);
  ASSERT_EQ(a.source.size(), b.source.size());
  for (size_t i = 0; i < a.source.size(); ++i) {
    EXPECT_EQ(a.source[i].file, b.source[i].file);
    EXPECT_EQ(a.source[i].line, b.source[i].line);
    EXPECT_EQ(a.source[i].function, b.source[i].function);
    EXPECT_EQ(a.source[i].code, b.source[i].code);
  }
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.compressors, b.compressors);
}

void expect_same_index(const Index& a, const Index& b) {
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.provenance.archive, b.provenance.archive);
  EXPECT_EQ(a.provenance.archive_hash, b.provenance.archive_hash);
  EXPECT_EQ(a.provenance.torch_version, b.provenance.torch_version);
  EXPECT_EQ(a.provenance.source_files, b.provenance.source_files);
  EXPECT_EQ(a.provenance.untraced, b.provenance.untraced);
  ASSERT_EQ(a.modules.size(), b.modules.size());
  for (size_t i = 0; i < a.modules.size(); ++i) {
    EXPECT_EQ(a.modules[i].name, b.modules[i].name);
    EXPECT_EQ(a.modules[i].type, b.modules[i].type);
    EXPECT_EQ(a.modules[i].parent, b.modules[i].parent);
    EXPECT_EQ(a.modules[i].children, b.modules[i].children);
    EXPECT_EQ(a.modules[i].ops, b.modules[i].ops);
    EXPECT_EQ(a.modules[i].inputs, b.modules[i].inputs);
    EXPECT_EQ(a.modules[i].outputs, b.modules[i].outputs);
  }
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i)
    expect_same_ops(a.ops[i], b.ops[i]);
  // Per op, the order of compressors is not meaningful (the file sorts them by name).
  auto sorted = [](auto types) {
    for (auto& [op, list] : types)
      std::sort(list.begin(), list.end());
    return types;
  };
  EXPECT_EQ(sorted(a.compressor_types), sorted(b.compressor_types));
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("opscope-index-" + std::to_string(getpid()) + "-" + name))
      .string();
}

std::string error_of(const std::string& text, const std::string& origin = "idx.json") {
  try {
    from_json_text(text, origin);
  } catch (const IndexFormatError& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(IndexFileText, OddNamesSurviveSaveAndLoadExactly) {
  Index original = odd_names_index();
  std::string path = temp_path("odd.json");
  save_index(original, path);
  Index copy = load_index(path);
  std::filesystem::remove(path);
  expect_same_index(original, copy);
  ASSERT_NE(copy.find_op(kQuoted), nullptr);
  EXPECT_EQ(copy.type_for(*copy.find_op(kQuoted), Compressor::KMeansPalettizer), "a\"dd");
}

TEST(IndexFileText, SaveAndToJsonTextWriteTheSameBytes) {
  Index original = odd_names_index();
  std::string path = temp_path("same.json");
  save_index(original, path);
  std::ifstream in(path, std::ios::binary);
  std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  EXPECT_EQ(saved, to_json_text(original));
}

TEST(IndexFileText, IsJsonThatAnotherParserReadsAsTheSameNames) {
  // nlohmann's strict parser checks escapes and UTF-8 independently of our reader.
  auto doc = nlohmann::json::parse(to_json_text(odd_names_index()));
  EXPECT_EQ(doc["format"], "opscope-index");
  EXPECT_EQ(doc["ops"][1]["name"], kQuoted);
  EXPECT_EQ(doc["ops"][2]["name"], kNonAscii);
  EXPECT_EQ(doc["ops"][3]["name"], control_characters());
  EXPECT_EQ(doc["ops"][1]["source"][1][2], control_characters());
  EXPECT_EQ(doc["compressor_types"][kQuoted]["kmeans_palettizer"], "a\"dd");
}

TEST(IndexFileText, EscapesLikeTheJsonLibraryDid) {
  Index index = odd_names_index();
  index.ops[3].name = "a\"b\\c\nd\te\x01\x1f\x7f/\xC3\xA9";
  std::string text = to_json_text(index);
  EXPECT_TRUE(contains(text, R"("name":"a\"b\\c\nd\te\u0001\u001f)"
                             "\x7f/\xC3\xA9\""))
      << text;
}

TEST(IndexFileText, InvalidUtf8InANameStillMakesValidJson) {
  Index index = odd_names_index();
  index.ops[2].name = "bad\xFF.\xC3(.\xED\xA0\x80.\xE4\xB8"; // stray, cut, surrogate, truncated
  index.modules[1].type = "\xC0\xAF";                        // overlong '/'
  std::string text = to_json_text(index);
  EXPECT_TRUE(nlohmann::json::accept(text));
  Index copy = from_json_text(text, "test");
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(copy.ops[2].name.substr(0, 6), "bad" + replacement);
  EXPECT_EQ(copy.ops[2].name.find('\xFF'), std::string::npos);
  EXPECT_EQ(copy.modules[1].type, replacement + replacement);
  // Everything valid is untouched.
  expect_same_ops(copy.ops[1], index.ops[1]);
}

TEST(IndexFileText, ReadsFilesFromEarlierReleasesInAnyKeyOrderAndLayout) {
  // The nlohmann writer sorted keys (version last) and a person may pretty-print a file:
  // cached indexes like these must keep loading.
  std::string text = R"({
    "compressor_types": {"add_": {"quantizer": "add", "future_compressor": "x"}},
    "format": "opscope-index",
    "future_key": [1, {"a": null}, 2.5e3, false],
    "mode": "eager",
    "modules": [{"children": [], "inputs": [[0, [["add_", 0, "extra"]]]], "name": "",
                 "ops": [0], "outputs": [], "parent": -1, "type": "m.M"}],
    "ops": [{"compressors": 1, "inputs": [{"producer": "x", "slot": 0},
                                           {"producer": "w", "state": true}],
             "kind": "call", "name": "add_\u00e9\ud83d\ude00\/", "outputs": [[0, []]],
             "source": [], "stack": [["", "m.M"]], "type": "add_"}],
    "provenance": {"archive": "m.pt2", "archive_hash": "h", "source_files": [],
                   "torch_version": "2.13"},
    "version": 3
  })";
  Index index = from_json_text(text, "old.json");
  EXPECT_EQ(index.mode, Mode::Eager);
  ASSERT_EQ(index.ops.size(), 1u);
  const std::string name = "add_\xC3\xA9\xF0\x9F\x98\x80/";
  EXPECT_EQ(index.ops[0].name, name);
  EXPECT_EQ(index.ops[0].inputs.at(1), (InputEdge{"w", std::nullopt, true}));
  EXPECT_EQ(index.modules[0].inputs.at(0).second.at(0), (BoundaryEdge{"add_", 0}));
  EXPECT_EQ(index.type_for(index.ops[0], Compressor::Quantizer), "add_");
  EXPECT_EQ(index.compressor_types.at("add_").size(), 1u);
  EXPECT_EQ(index.find_op(name), &index.ops[0]);
}

TEST(IndexFileText, NamesWhatIsWrongWithABadFile) {
  std::string good = to_json_text(odd_names_index());
  // Another JSON file, or not JSON at all.
  EXPECT_TRUE(contains(error_of("{\"weights\": 1}"), "idx.json: not an opscope index file"));
  EXPECT_TRUE(contains(error_of(""), "not an opscope index file"));
  EXPECT_TRUE(contains(error_of("PK\x03\x04 zip bytes"), "not an opscope index file"));
  EXPECT_TRUE(contains(error_of("[1, 2]"), "not an opscope index file"));
  // A newer index whose layout changed: the version is what the user must hear about.
  std::string newer = R"({"format":"opscope-index","version":4,"modules":{"by_name":{}}})";
  EXPECT_TRUE(contains(error_of(newer), "index format version 4, this opscope reads version 3"));
  // Truncated: says corrupt, why, and to rebuild.
  std::string truncated = error_of(good.substr(0, good.size() / 2), "cut.json");
  EXPECT_TRUE(contains(truncated, "cut.json: corrupt index file (not valid JSON: ")) << truncated;
  EXPECT_TRUE(contains(truncated, "re-create it with `opscope index MODEL.pt2 -o cut.json`"))
      << truncated;
  // A field of the wrong type in a current-version file.
  std::string wrong_type = good;
  auto pos = wrong_type.find("\"parent\":-1");
  ASSERT_NE(pos, std::string::npos);
  wrong_type.replace(pos, 11, "\"parent\":\"root\"");
  std::string message = error_of(wrong_type);
  EXPECT_TRUE(contains(message, "corrupt index file (a module's \"parent\" is not an integer)"))
      << message;
  // A required member missing.
  std::string no_name = good;
  no_name.replace(no_name.find("{\"name\":"), 8, "{\"nom\":");
  EXPECT_TRUE(contains(error_of(no_name), "a module without \"name\"")) << error_of(no_name);
  // Bytes that are not UTF-8 inside a string.
  std::string bad_bytes = good;
  bad_bytes.replace(bad_bytes.find("m.My"), 1, "\xFF");
  EXPECT_TRUE(contains(error_of(bad_bytes), "corrupt index file (not valid JSON: "))
      << error_of(bad_bytes);
  EXPECT_TRUE(contains(error_of(bad_bytes), "not valid UTF-8")) << error_of(bad_bytes);
  // Hostile nesting in an unknown member: an error, not a stack overflow.
  std::string deep = R"({"format":"opscope-index","version":1,"x":)" + std::string(100000, '[');
  EXPECT_TRUE(contains(error_of(deep), "corrupt index file (not valid JSON: ")) << error_of(deep);
  std::string balanced = deep + std::string(100000, ']') + "}";
  EXPECT_TRUE(contains(error_of(balanced), "corrupt index file (not valid JSON: "))
      << error_of(balanced);
  EXPECT_TRUE(contains(error_of(balanced), "too deep")) << error_of(balanced);
  // Trailing garbage after the document.
  EXPECT_TRUE(contains(error_of(good + "}"), "corrupt index file"));
}

TEST(IndexFileText, UnreadableAndUnwritablePathsAreNamed) {
  try {
    load_index("/nonexistent/dir/idx.json");
    FAIL() << "expected an error";
  } catch (const IndexFormatError& e) {
    EXPECT_TRUE(contains(e.what(), "/nonexistent/dir/idx.json: cannot read the index file"));
  }
  EXPECT_THROW(save_index(odd_names_index(), "/nonexistent/dir/idx.json"), IndexFormatError);
}

TEST(IndexFileText, EverySpecialCharacterSurvivesAtEveryPositionOfALongName) {
  // The writer copies plain text in 8-byte steps: a quote, backslash, control byte or UTF-8
  // sequence must be found wherever it falls within (or across) a step.
  const std::string specials[] = {
      "\"", "\\", "\n", std::string("\0", 1), "\x1f", "\xC3\xA9", "\xF0\x9F\x98\x80", "\x7f", "/"};
  Index index = odd_names_index();
  for (const auto& special : specials)
    for (size_t position = 0; position <= 24; ++position) {
      std::string name = std::string(position, 'a') + special + std::string(30 - position, 'b');
      index.ops[3].name = name;
      Index copy = from_json_text(to_json_text(index), "test");
      EXPECT_EQ(copy.ops[3].name, name) << "position " << position;
    }
}

TEST(IndexFileText, IsRecognisedAsAnIndexFileWhicheverWriterMadeIt) {
  // `opscope summary FILE` treats FILE as an index only if this says so.
  std::string current = temp_path("sniff-current.json");
  save_index(odd_names_index(), current);
  EXPECT_TRUE(looks_like_index_file(current));
  // The earlier writer sorted keys: an eager index's compressor_types came before "format".
  std::string earlier = temp_path("sniff-earlier.json");
  std::ofstream(earlier) << R"({"compressor_types":{"layers.0.attention.very_long_op_name_add_":)"
                         << R"({"quantizer":"add"}},"format":"opscope-index","mode":"eager"})";
  EXPECT_TRUE(looks_like_index_file(earlier));
  std::string other = temp_path("sniff-other.json");
  std::ofstream(other) << R"({"compressor_types":{"x":{}},"format":"something-else"})";
  EXPECT_FALSE(looks_like_index_file(other));
  for (const auto& path : {current, earlier, other})
    std::filesystem::remove(path);
}
