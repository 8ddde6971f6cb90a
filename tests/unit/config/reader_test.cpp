#include "annotations.h"
#include "opscope/coreai/config/document.h"

#include <gtest/gtest.h>

using namespace opscope::config;
using opscope::testing::Annotations;

namespace {

std::vector<const PatternKey*> keys_of(const ConfigDocument& doc, Table table) {
  std::vector<const PatternKey*> out;
  for (const auto& k : doc.keys)
    if (k.table == table)
      out.push_back(&k);
  return out;
}

const PatternKey* key_named(const ConfigDocument& doc, const std::string& text) {
  for (const auto& k : doc.keys)
    if (k.text == text)
      return &k;
  return nullptr;
}

} // namespace

TEST(ConfigReader, YamlKeysKnowTheirTableScopeAndRange) {
  Annotations a(R"(# a comment
quantization_config:
  execution_mode: graph
  global_config:
    op_type_config:
      [[linear]]: null
  module_type_configs:
    [[torch.nn.modules.conv.Conv2d]]:
      op_name_config:
        [[conv2d_1]]: null
  module_name_configs:
    [[layer1\..*]]:   # all of layer1
      op_type_config:
        [[relu]]: null
)");
  ConfigDocument doc = read_config(a.code(), Format::Yaml);
  EXPECT_EQ(doc.root, Compressor::Quantizer);
  EXPECT_EQ(doc.execution_mode, "graph");
  ASSERT_EQ(doc.keys.size(), 5u);

  EXPECT_EQ(doc.keys[0].text, "linear");
  EXPECT_EQ(doc.keys[0].table, Table::OpType);
  EXPECT_EQ(doc.keys[0].scope.kind, Scope::Kind::Global);
  EXPECT_EQ(doc.keys[0].range, a.range(0));

  EXPECT_EQ(doc.keys[1].text, "torch.nn.modules.conv.Conv2d");
  EXPECT_EQ(doc.keys[1].table, Table::ModuleType);
  EXPECT_EQ(doc.keys[1].range, a.range(1));

  EXPECT_EQ(doc.keys[2].text, "conv2d_1");
  EXPECT_EQ(doc.keys[2].table, Table::OpName);
  EXPECT_EQ(doc.keys[2].scope.kind, Scope::Kind::ModuleType);
  EXPECT_EQ(doc.keys[2].scope.key, "torch.nn.modules.conv.Conv2d");
  EXPECT_EQ(doc.keys[2].range, a.range(2));

  EXPECT_EQ(doc.keys[3].text, "layer1\\..*");
  EXPECT_EQ(doc.keys[3].table, Table::ModuleName);
  EXPECT_EQ(doc.keys[3].range, a.range(3)) << "the trailing comment is not part of the key";

  EXPECT_EQ(doc.keys[4].text, "relu");
  EXPECT_EQ(doc.keys[4].scope.kind, Scope::Kind::ModuleName);
  EXPECT_EQ(doc.keys[4].scope.key, "layer1\\..*");
  EXPECT_EQ(doc.keys[4].range, a.range(4));
  EXPECT_TRUE(doc.problems.empty());
  EXPECT_TRUE(doc.duplicates.empty());
}

TEST(ConfigReader, YamlQuotedKeysAreUnescapedAndMapBackToColumns) {
  Annotations a(R"(quantization_config:
  module_name_configs:
    [["layer1\\.0\\.conv1"]]: null
    [['it''s']]: null
    [["\u0061b"]]: null
)");
  ConfigDocument doc = read_config(a.code(), Format::Yaml);
  ASSERT_EQ(doc.keys.size(), 3u);
  EXPECT_EQ(doc.keys[0].text, "layer1\\.0\\.conv1");
  EXPECT_TRUE(doc.keys[0].quoted);
  EXPECT_EQ(doc.keys[0].quote, '"');
  EXPECT_EQ(doc.keys[0].range, a.range(0));
  // `\.` of the regex is written `\\.`: the '.' at text[7] sits at column 4+1+8.
  ASSERT_EQ(doc.keys[0].byte_cols.size(), doc.keys[0].text.size() + 1);
  EXPECT_EQ(doc.keys[0].byte_cols[6], 4 + 1 + 6);
  EXPECT_EQ(doc.keys[0].byte_cols[7], 4 + 1 + 8);
  EXPECT_EQ(doc.keys[1].text, "it's");
  EXPECT_EQ(doc.keys[1].range, a.range(1));
  EXPECT_EQ(doc.keys[2].text, "ab");
}

TEST(ConfigReader, JsonKeysWithEscapes) {
  Annotations a(R"({
  "quantization_config": {
    "execution_mode": "eager",
    "module_name_configs": {
      [["layer1\\.0"]]: {"op_name_config": {[["conv\u0032d"]]: null}},
      [["a\"b"]]: null
    },
    "module_type_configs": {[["torch.nn.modules.linear.Linear"]]: null}
  }
})");
  ConfigDocument doc = read_config(a.code(), Format::Json);
  EXPECT_EQ(doc.root, Compressor::Quantizer);
  EXPECT_EQ(doc.execution_mode, "eager");
  ASSERT_EQ(doc.keys.size(), 4u);
  EXPECT_EQ(doc.keys[0].text, "layer1\\.0");
  EXPECT_EQ(doc.keys[0].range, a.range(0));
  EXPECT_EQ(doc.keys[1].text, "conv2d");
  EXPECT_EQ(doc.keys[1].table, Table::OpName);
  EXPECT_EQ(doc.keys[1].scope.key, "layer1\\.0");
  EXPECT_EQ(doc.keys[1].range, a.range(1));
  EXPECT_EQ(doc.keys[2].text, "a\"b");
  EXPECT_EQ(doc.keys[3].table, Table::ModuleType);
  EXPECT_EQ(doc.keys[3].range, a.range(3));
  EXPECT_TRUE(doc.problems.empty()) << doc.problems.front().message;
}

TEST(ConfigReader, AliasedMappingsBelongWhereTheyAreMerged) {
  Annotations a(R"(quantization_spec:
  linear_cfg: &linear_cfg
    op_name_config:
      [[linear_1]]: null
  base: &base
    op_type_config:
      [[relu]]: null
quantization_config:
  module_type_configs:
    torch.nn.modules.linear.Linear: *linear_cfg
  module_name_configs:
    encoder:
      <<: *base
      op_name_config:
        [[add_.*]]: null
)");
  ConfigDocument doc = read_config(a.code(), Format::Yaml);
  auto op_names = keys_of(doc, Table::OpName);
  ASSERT_EQ(op_names.size(), 2u);
  EXPECT_EQ(op_names[0]->text, "linear_1");
  EXPECT_EQ(op_names[0]->scope.kind, Scope::Kind::ModuleType);
  EXPECT_EQ(op_names[0]->scope.key, "torch.nn.modules.linear.Linear");
  EXPECT_TRUE(op_names[0]->via_alias);
  EXPECT_EQ(op_names[0]->range, a.range(0)) << "an aliased key points where it is written";
  EXPECT_FALSE(op_names[1]->via_alias);
  EXPECT_EQ(op_names[1]->range, a.range(2));

  auto op_types = keys_of(doc, Table::OpType);
  ASSERT_EQ(op_types.size(), 1u);
  EXPECT_EQ(op_types[0]->text, "relu");
  EXPECT_EQ(op_types[0]->scope.kind, Scope::Kind::ModuleName);
  EXPECT_EQ(op_types[0]->scope.key, "encoder");
  EXPECT_TRUE(op_types[0]->via_alias);
  EXPECT_EQ(op_types[0]->range, a.range(1));
}

TEST(ConfigReader, AliasCyclesDoNotHang) {
  ConfigDocument doc = read_config(R"(quantization_spec:
  a: &a
    <<: *a
    op_name_config: {x: null}
quantization_config:
  global_config: *a
)",
                                   Format::Yaml);
  EXPECT_EQ(doc.root, Compressor::Quantizer);
}

TEST(ConfigReader, FlowStyleInsideYaml) {
  Annotations a(R"(kmeans_palettization_config:
  global_config: {op_state_spec: {weight: {n_bits: 4}}, op_type_config: {[[conv2d]]: null, [['linear']]: null}}
  module_name_configs: { [[dec.*]]: null,
     [["enc\\..*"]]: {op_name_config: {[[conv]]: null}} }
)");
  ConfigDocument doc = read_config(a.code(), Format::Yaml);
  EXPECT_EQ(doc.root, Compressor::KMeansPalettizer);
  ASSERT_EQ(doc.keys.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(doc.keys[i].range, a.range(i)) << doc.keys[i].text;
  EXPECT_EQ(doc.keys[1].text, "linear");
  EXPECT_EQ(doc.keys[3].text, "enc\\..*");
  EXPECT_EQ(doc.keys[4].scope.key, "enc\\..*");
  EXPECT_TRUE(doc.problems.empty());
}

TEST(ConfigReader, UnclosedFlowBraceDoesNotSwallowTheNextKeys) {
  ConfigDocument doc = read_config(R"(quantization_config:
  global_config: {op_type_config: {linear: null
  module_name_configs:
    layer1: null
)",
                                   Format::Yaml);
  ASSERT_NE(key_named(doc, "layer1"), nullptr);
  EXPECT_EQ(key_named(doc, "layer1")->table, Table::ModuleName);
  ASSERT_NE(key_named(doc, "linear"), nullptr);
  ASSERT_FALSE(doc.problems.empty());
  EXPECT_NE(doc.problems.front().message.find("unclosed '{'"), std::string::npos);
}

TEST(ConfigReader, HalfTypedKeysAndMissingColons) {
  Annotations a(R"(quantization_config:
  module_name_configs:
    layer1.0: null
    [[lay]]
    layer2:
  global_config:
    op_name_config:
      [[conv]]
)");
  ConfigDocument doc = read_config(a.code(), Format::Yaml);
  auto names = keys_of(doc, Table::ModuleName);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[1]->text, "lay");
  EXPECT_EQ(names[1]->range, a.range(0));
  EXPECT_EQ(names[2]->text, "layer2");
  auto ops = keys_of(doc, Table::OpName);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0]->range, a.range(1));
  ASSERT_EQ(doc.problems.size(), 2u);
  EXPECT_NE(doc.problems[0].message.find("missing ':'"), std::string::npos);
}

TEST(ConfigReader, UnterminatedQuoteEndsAtItsLine) {
  Annotations a(R"(quantization_config:
  module_name_configs:
    [["layer1.]]
    layer2: null
)");
  ConfigDocument doc = read_config(a.code(), Format::Yaml);
  auto names = keys_of(doc, Table::ModuleName);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0]->text, "layer1.");
  EXPECT_EQ(names[0]->range, a.range(0));
  EXPECT_EQ(names[1]->text, "layer2");
  ASSERT_FALSE(doc.problems.empty());
  EXPECT_NE(doc.problems[0].message.find("unterminated string"), std::string::npos);
}

TEST(ConfigReader, TabsAreReportedButRead) {
  ConfigDocument doc =
      read_config("quantization_config:\n\tmodule_name_configs:\n\t\tfc: null\n", Format::Yaml);
  ASSERT_NE(key_named(doc, "fc"), nullptr);
  EXPECT_EQ(key_named(doc, "fc")->range.start, (Position{2, 2}));
  ASSERT_FALSE(doc.problems.empty());
  EXPECT_NE(doc.problems[0].message.find("tab"), std::string::npos);
}

TEST(ConfigReader, BadIndentationIsReportedAndKeptInItsMapping) {
  ConfigDocument doc = read_config(R"(quantization_config:
  module_name_configs:
    fc1: null
      fc2: null
)",
                                   Format::Yaml);
  EXPECT_EQ(keys_of(doc, Table::ModuleName).size(), 2u);
  ASSERT_EQ(doc.problems.size(), 1u);
  EXPECT_NE(doc.problems[0].message.find("indentation"), std::string::npos);
}

TEST(ConfigReader, DuplicateKeysAreFound) {
  Annotations a(R"(quantization_config:
  module_name_configs:
    [[fc]]: null
    other: null
    [['fc']]: {}
)");
  ConfigDocument doc = read_config(a.code(), Format::Yaml);
  ASSERT_EQ(doc.duplicates.size(), 1u);
  EXPECT_EQ(doc.duplicates[0].key, "fc");
  EXPECT_EQ(doc.duplicates[0].first, a.range(0));
  EXPECT_EQ(doc.duplicates[0].duplicate, a.range(1));
}

TEST(ConfigReader, BrokenJsonStillYieldsKeys) {
  Annotations a(R"({"quantization_config": {
  "module_name_configs": {
    "fc1": null
    [["fc2]]
    [[fc3]]: null,
)");
  ConfigDocument doc = read_config(a.code(), Format::Json);
  auto names = keys_of(doc, Table::ModuleName);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[1]->text, "fc2");
  EXPECT_EQ(names[1]->range, a.range(0));
  EXPECT_EQ(names[2]->range, a.range(1));
  EXPECT_GE(doc.problems.size(), 3u); // missing comma, unterminated string, unquoted key, unclosed
}

TEST(ConfigReader, BlockScalarsAndSequencesAreNotKeys) {
  ConfigDocument doc = read_config(R"(quantization_config:
  preserved_attributes:
    - config
    - name: x
  module_name_configs:
    fc: |
      not_a_key: 1
    fc2: null
)",
                                   Format::Yaml);
  auto names = keys_of(doc, Table::ModuleName);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[1]->text, "fc2");
  EXPECT_TRUE(doc.problems.empty());
}

TEST(ConfigReader, RootsNameTheCompressor) {
  EXPECT_EQ(read_config("magnitude_pruning_config:\n  global_config:\n", Format::Yaml).root,
            Compressor::MagnitudePruner);
  EXPECT_EQ(read_config("{\"kmeans_palettization_config\": {}}", Format::Json).root,
            Compressor::KMeansPalettizer);
  EXPECT_EQ(read_config("", Format::Yaml).root, Compressor::None);
  EXPECT_EQ(read_config("just text", Format::Yaml).root, Compressor::None);
}

TEST(ConfigReader, GuessesTheFormat) {
  EXPECT_EQ(guess_format("q.JSON", ""), Format::Json);
  EXPECT_EQ(guess_format("q.yml", "{}"), Format::Yaml);
  EXPECT_EQ(guess_format("q", "  {\"a\": 1}"), Format::Json);
  EXPECT_EQ(guess_format("q", "a: 1"), Format::Yaml);
}

TEST(ConfigReader, NoInputCrashes) {
  // Every prefix of a realistic document: what the reader sees while a user types it.
  std::string doc = R"(quantization_spec:
  s: &s {dtype: int8, granularity: {type: per_tensor}}
quantization_config:
  execution_mode: "graph"
  global_config: {op_type_config: {"linear": null}}
  module_name_configs:
    'layer1\.0': {op_name_config: {"conv.*": *s}}
    "x\u00e9\"y": [1, 2, {a: b}]
)";
  std::string json =
      R"({"quantization_config": {"module_name_configs": {"a\\.b": {"op_name_config": {"c\ud83d\ude00": null}}}}})";
  for (std::size_t n = 0; n <= doc.size(); ++n)
    read_config(doc.substr(0, n), Format::Yaml);
  for (std::size_t n = 0; n <= json.size(); ++n)
    read_config(json.substr(0, n), Format::Json);
  ConfigDocument full = read_config(json, Format::Json);
  ASSERT_EQ(full.keys.size(), 2u);
  EXPECT_EQ(full.keys[1].text, "c\xF0\x9F\x98\x80");
}

TEST(ConfigReader, ByteOrderMarkAndWindowsLineEndings) {
  ConfigDocument yaml =
      read_config("\xEF\xBB\xBFquantization_config:\r\n  module_name_configs:\r\n    fc: null\r\n",
                  Format::Yaml);
  EXPECT_EQ(yaml.root, Compressor::Quantizer);
  ASSERT_EQ(yaml.keys.size(), 1u);
  EXPECT_EQ(yaml.keys[0].text, "fc");
  EXPECT_EQ(yaml.keys[0].range, (Range{{2, 4}, {2, 6}}));
  EXPECT_TRUE(yaml.problems.empty());
  ConfigDocument json = read_config(
      "\xEF\xBB\xBF{\"quantization_config\": {\"module_name_configs\": {\"fc\": null}}}\r\n",
      Format::Json);
  ASSERT_EQ(json.keys.size(), 1u);
  EXPECT_TRUE(json.problems.empty());
}

TEST(ConfigReader, UnknownFieldsAreTyposCoreaiOptWouldReject) {
  Annotations a(R"([[quantization_spek]]:
  s: {dtype: int8}
quantization_config:
  [[module_name_config]]:
    fc: null
  global_config:
    op_type_config:
      linear:
        [[op_input_specs]]: null
    op_state_spec: {weight: null}
  module_type_configs:
    torch.nn.modules.linear.Linear:
      qat_schedule: null
)");
  ConfigDocument doc = read_config(a.code(), Format::Yaml);
  ASSERT_EQ(doc.unknown_fields.size(), 3u);
  EXPECT_EQ(doc.unknown_fields[0].name, "quantization_spek");
  EXPECT_EQ(doc.unknown_fields[0].range, a.range(0));
  EXPECT_EQ(doc.unknown_fields[1].name, "module_name_config");
  EXPECT_EQ(doc.unknown_fields[1].where, "quantization_config");
  EXPECT_EQ(doc.unknown_fields[1].range, a.range(1));
  EXPECT_EQ(doc.unknown_fields[2].name, "op_input_specs");
  EXPECT_EQ(doc.unknown_fields[2].where, "an op config");
  EXPECT_EQ(doc.unknown_fields[2].range, a.range(2));

  EXPECT_TRUE(read_config("name: x\nother: 1\n", Format::Yaml).unknown_fields.empty())
      << "a file that is not a coreai-opt config is not held to its fields";
  EXPECT_TRUE(read_config("test_config:\n  steps: 1\n", Format::Yaml).unknown_fields.empty())
      << "nor is a `_config` key that names no compressor";
}

TEST(ConfigReader, AMisrememberedRootKeyIsUnknownAndNamesTheRootMeant) {
  // from_yaml raises "Did not find 'kmeans_palettization_config'" on these; without a word
  // here the file would read as no config at all and pass every check.
  ConfigDocument doc = read_config("palettization_config:\n  global_config: {}\n", Format::Yaml);
  ASSERT_EQ(doc.unknown_fields.size(), 1u);
  EXPECT_EQ(doc.unknown_fields[0].name, "palettization_config");
  EXPECT_EQ(doc.unknown_fields[0].where, "the top level");
  EXPECT_EQ(doc.unknown_fields[0].valid, std::vector<std::string>{"kmeans_palettization_config"});
  EXPECT_EQ(doc.unknown_fields[0].range.start.line, 0);

  ConfigDocument british = read_config("{\"quantisation_config\": {}}", Format::Json);
  ASSERT_EQ(british.unknown_fields.size(), 1u);
  EXPECT_EQ(british.unknown_fields[0].valid, std::vector<std::string>{"quantization_config"});

  ConfigDocument python =
      read_config("from coreai_opt.quantization import QuantizerConfig\n"
                  "c = QuantizerConfig.from_dict({'quantisation_config': {}})\n",
                  Format::Python);
  ASSERT_EQ(python.unknown_fields.size(), 1u);
  EXPECT_EQ(python.unknown_fields[0].name, "quantisation_config");
}
