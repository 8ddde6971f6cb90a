// The Python reader on the issue's and the reference docs' examples: the same keys, tables,
// scopes and ranges as the YAML form of each config.
#include "annotations.h"
#include "opscope/coreai/config/context.h"
#include "opscope/coreai/config/document.h"

#include <gtest/gtest.h>

using namespace opscope::config;
using opscope::testing::Annotations;

namespace {

std::string describe(const ConfigDocument& doc) {
  std::string out;
  for (const PatternKey& k : doc.keys)
    out += std::string(opscope::coreai::config_key(k.table)) + " '" + k.text + "' in '" +
           k.scope.key + "'" + (k.null_value ? " null" : "") + "\n";
  return out;
}

ConfigDocument read(const std::string& code) {
  return read_config(code, Format::Python);
}

} // namespace

TEST(PythonReader, IssueExampleGivesTheYamlFormsKeys) {
  Annotations a(R"(from coreai_opt.quantization.config import QuantizerConfig, ModuleQuantizerConfig

config = [[QuantizerConfig]](
    global_config=ModuleQuantizerConfig(op_type_config={[["linear"]]: None}),
    module_name_configs={[["model.layers.0"]]: ModuleQuantizerConfig(op_type_config={[["softmax"]]: None})},
    module_type_configs={[["torch.nn.modules.linear.Linear"]]: None},
)
)");
  ConfigDocument doc = read(a.code());
  EXPECT_EQ(doc.format, Format::Python);
  EXPECT_EQ(doc.root, Compressor::Quantizer);
  EXPECT_EQ(doc.root_range, a.range(0));
  ASSERT_EQ(doc.keys.size(), 4u) << describe(doc);
  EXPECT_EQ(doc.keys[0].text, "linear");
  EXPECT_EQ(doc.keys[0].table, Table::OpType);
  EXPECT_EQ(doc.keys[0].scope.kind, Scope::Kind::Global);
  EXPECT_EQ(doc.keys[0].range, a.range(1));
  EXPECT_TRUE(doc.keys[0].null_value);
  EXPECT_EQ(doc.keys[1].text, "model.layers.0");
  EXPECT_EQ(doc.keys[1].table, Table::ModuleName);
  EXPECT_EQ(doc.keys[1].range, a.range(2));
  EXPECT_FALSE(doc.keys[1].null_value);
  EXPECT_EQ(doc.keys[2].text, "softmax");
  EXPECT_EQ(doc.keys[2].scope.kind, Scope::Kind::ModuleName);
  EXPECT_EQ(doc.keys[2].scope.key, "model.layers.0");
  EXPECT_EQ(doc.keys[2].range, a.range(3));
  EXPECT_EQ(doc.keys[3].text, "torch.nn.modules.linear.Linear");
  EXPECT_EQ(doc.keys[3].table, Table::ModuleType);
  EXPECT_EQ(doc.keys[3].range, a.range(4));
  EXPECT_TRUE(doc.keys[3].null_value);
  ASSERT_TRUE(doc.global_config_range);
  EXPECT_TRUE(doc.unknown_fields.empty());
  EXPECT_TRUE(doc.problems.empty());
}

TEST(PythonReader, SettersAndShortcutsNameModulesAndTypes) {
  Annotations a(R"(import torch.nn as nn
from coreai_opt.quantization.config import QuantizerConfig, ModuleQuantizerConfig

config = QuantizerConfig()
config.set_module_name(r[["layer1\..*"]], ModuleQuantizerConfig(op_type_config={[['conv2d']]: None})).set_module_type([[nn.Linear]], None)
config = QuantizerConfig().only_for([["layer1.*"]], [[nn.Conv2d]])
config = QuantizerConfig.presets.w4().without([ [[torch.nn.LayerNorm]], [["model.lm_head"]]])
)");
  ConfigDocument doc = read(a.code());
  ASSERT_EQ(doc.keys.size(), 7u) << describe(doc);
  EXPECT_EQ(doc.keys[0].text, "layer1\\..*");
  EXPECT_TRUE(doc.keys[0].raw);
  EXPECT_EQ(doc.keys[0].table, Table::ModuleName);
  EXPECT_EQ(doc.keys[0].range, a.range(0)); // from the quote: the prefix stays when replaced
  EXPECT_EQ(doc.keys[1].text, "conv2d");
  EXPECT_EQ(doc.keys[1].quote, '\'');
  EXPECT_EQ(doc.keys[1].scope.key, "layer1\\..*");
  EXPECT_EQ(doc.keys[1].range, a.range(1));
  EXPECT_EQ(doc.keys[2].text, "torch.nn.modules.linear.Linear");
  EXPECT_EQ(doc.keys[2].table, Table::ModuleType);
  EXPECT_EQ(doc.keys[2].range, a.range(2));
  EXPECT_TRUE(doc.keys[2].null_value);
  EXPECT_EQ(doc.keys[3].text, "layer1.*");
  EXPECT_EQ(doc.keys[3].table, Table::ModuleName);
  EXPECT_FALSE(doc.keys[3].null_value); // only_for: the former global config
  EXPECT_EQ(doc.keys[4].text, "torch.nn.modules.conv.Conv2d");
  EXPECT_EQ(doc.keys[4].range, a.range(4));
  EXPECT_EQ(doc.keys[5].text, "model.lm_head");
  EXPECT_EQ(doc.keys[5].range, a.range(6));
  EXPECT_TRUE(doc.keys[5].null_value); // without: disabled
  EXPECT_EQ(doc.keys[6].text, "torch.nn.modules.normalization.LayerNorm");
  EXPECT_EQ(doc.keys[6].range, a.range(5));
}

TEST(PythonReader, FromDictReadsTheDocumentAsYamlWould) {
  Annotations a(R"(from coreai_opt.palettization.config import KMeansPalettizerConfig
config = KMeansPalettizerConfig.from_dict({
    "[[kmeans_palettization_config]]": {
        "module_name_configs": {[["decoder.*"]]: {"op_name_config": {[['linear_3']]: None}}},
        "modul_type_configs": {},
    }
})
)");
  ConfigDocument doc = read(a.code());
  EXPECT_EQ(doc.root, Compressor::KMeansPalettizer);
  EXPECT_EQ(doc.root_range, a.range(0));
  ASSERT_EQ(doc.keys.size(), 2u) << describe(doc);
  EXPECT_EQ(doc.keys[0].text, "decoder.*");
  EXPECT_EQ(doc.keys[0].range, a.range(1));
  EXPECT_EQ(doc.keys[1].text, "linear_3");
  EXPECT_EQ(doc.keys[1].table, Table::OpName);
  EXPECT_EQ(doc.keys[1].range, a.range(2));
  ASSERT_EQ(doc.unknown_fields.size(), 1u);
  EXPECT_EQ(doc.unknown_fields[0].name, "modul_type_configs");
}

TEST(PythonReader, TheConfigClassNamesTheCompressor) {
  EXPECT_EQ(read("from coreai_opt.pruning import MagnitudePrunerConfig\n"
                 "c = MagnitudePrunerConfig(module_name_configs={'fc': None})\n")
                .root,
            Compressor::MagnitudePruner);
  ConfigDocument pal = read("c = KMeansPalettizerConfig(module_type_configs={nn.Linear: "
                            "ModuleKMeansPalettizerConfig(op_type_config={'linear': None})})\n");
  EXPECT_EQ(pal.root, Compressor::KMeansPalettizer);
  ASSERT_EQ(pal.keys.size(), 2u) << describe(pal);
  EXPECT_EQ(pal.keys[1].scope.key, "torch.nn.modules.linear.Linear");
  // A setter on a variable bound to a palettizer config adds to the palettizer's.
  ConfigDocument setter = read("import coreai_opt\nc = KMeansPalettizerConfig.presets.w4()\n"
                               "c.set_module_name('lm_head', None)\n");
  EXPECT_EQ(setter.root, Compressor::KMeansPalettizer);
  ASSERT_EQ(setter.keys.size(), 1u);
}

TEST(PythonReader, EscapesAndQuotesAreReadAsPythonDoes) {
  ConfigDocument doc = read("import coreai_opt\nc = QuantizerConfig(module_name_configs={"
                            "'a\\\\.b': None, \"it's\": None, '''x''': None, 'layer\\.1': None, "
                            "'\\x41': None})\n");
  ASSERT_EQ(doc.keys.size(), 5u) << describe(doc);
  EXPECT_EQ(doc.keys[0].text, "a\\.b");
  EXPECT_EQ(doc.keys[1].text, "it's");
  EXPECT_EQ(doc.keys[2].text, "x");
  EXPECT_EQ(doc.keys[3].text, "layer\\.1"); // an unknown escape keeps its backslash
  EXPECT_EQ(doc.keys[4].text, "A");
  // Each character's column: an error at the regex's 3rd byte points past the escape.
  EXPECT_EQ(doc.keys[0].byte_cols[1], doc.keys[0].range.start.byte_col + 2);
  EXPECT_EQ(doc.keys[0].byte_cols[2], doc.keys[0].range.start.byte_col + 4);
}

TEST(PythonReader, FStringsAndVariablesAreReportedNotGuessed) {
  Annotations a(R"(import coreai_opt
name = "layer1"
c = QuantizerConfig(module_name_configs={[[f"{name}.fc"]]: None, [[name]]: None, "ok": None})
c.set_module_type([[MyBlock]], None)
)");
  ConfigDocument doc = read(a.code());
  ASSERT_EQ(doc.keys.size(), 1u) << describe(doc);
  EXPECT_EQ(doc.keys[0].text, "ok");
  ASSERT_EQ(doc.unchecked.size(), 3u);
  EXPECT_EQ(doc.unchecked[0].range, a.range(0));
  EXPECT_EQ(doc.unchecked[0].what, "an f-string");
  EXPECT_EQ(doc.unchecked[1].range, a.range(1));
  EXPECT_EQ(doc.unchecked[1].what, "a variable");
  EXPECT_EQ(doc.unchecked[2].range, a.range(2));
}

TEST(PythonReader, FilesWithoutAConfigGetNothing) {
  // Mentioned in a comment only, or another library's methods of the same name.
  for (const char* code :
       {"# converted later with coreai_opt's QuantizerConfig\nx = {'layer1': None}\n",
        "import torch\nm.set_module_name('a', None)\n", "", "def f(:\n  'QuantizerConfig'\n"}) {
    ConfigDocument doc = read(code);
    EXPECT_EQ(doc.root, Compressor::None) << code;
    EXPECT_TRUE(doc.keys.empty()) << code;
    EXPECT_TRUE(doc.unchecked.empty()) << code;
  }
}

TEST(PythonReader, GuessFormatPicksPythonByExtension) {
  EXPECT_EQ(guess_format("train.py", "{"), Format::Python);
  EXPECT_EQ(guess_format("/a/B.PY", ""), Format::Python);
}

TEST(PythonContext, CompletionContextInsideConfigStrings) {
  struct Case {
    const char* code;
    Table table;
    const char* typed;
  };
  for (Case c : {
           Case{"import coreai_opt\nc = QuantizerConfig(module_name_configs={\"lay^",
                Table::ModuleName, "lay"},
           Case{"import coreai_opt\nc = QuantizerConfig(module_name_configs={\"^\"})\n",
                Table::ModuleName, ""},
           Case{"import coreai_opt\nc = QuantizerConfig(module_name_configs={\"^\n)\nx = 1\n",
                Table::ModuleName, ""},
           Case{"import coreai_opt\nc = QuantizerConfig()\nc.set_module_name(\"la^\")\n",
                Table::ModuleName, "la"},
           Case{"import coreai_opt\nc = QuantizerConfig()\nc.set_module_name(r'a\\.^', None)\n",
                Table::ModuleName, "a\\."},
           Case{"import coreai_opt\nc = QuantizerConfig(global_config=ModuleQuantizerConfig("
                "op_type_config={\"li^\": None}))\n",
                Table::OpType, "li"},
           Case{"import coreai_opt\nc = QuantizerConfig(global_config=ModuleQuantizerConfig("
                "op_type_config={'^'\n",
                Table::OpType, ""},
       }) {
    Annotations a(c.code);
    ConfigDocument doc = read(a.code());
    CursorContext ctx = context_at(doc, a.point());
    EXPECT_EQ(ctx.kind, CursorContext::Kind::PatternKey) << c.code;
    EXPECT_EQ(ctx.table, c.table) << c.code;
    EXPECT_EQ(ctx.typed, c.typed) << c.code;
    EXPECT_EQ(ctx.format, Format::Python) << c.code;
  }
}

TEST(PythonContext, NothingOutsideConfigStrings) {
  for (const char* code : {
           "import coreai_opt\nc = QuantizerConfig(module_name_configs={\"a\": "
           "None})\nprint(\"x^\")\n",
           "import coreai_opt\nc = Quantizer^Config()\n",
           "import coreai_opt\nc = QuantizerConfig(global_config=ModuleQuantizerConfig("
           "op_state_spec={\"wei^\": None}))\n",
       }) {
    Annotations a(code);
    ConfigDocument doc = read(a.code());
    EXPECT_EQ(context_at(doc, a.point()).kind, CursorContext::Kind::None) << code;
  }
}

// The config classes come from the compressor table (<class>Config, Module<class>Config,
// Op<class>Config): each is read as its compressor's, and a name only resembling one is code.
TEST(PythonReader, ConfigClassesAreTheTablesAndOnlyThose) {
  using opscope::coreai::ConfigLevel;
  for (const opscope::coreai::CompressorInfo& info : opscope::coreai::compressors()) {
    for (ConfigLevel level : {ConfigLevel::Top, ConfigLevel::Module, ConfigLevel::Op}) {
      auto found = opscope::coreai::find_config_class(opscope::coreai::config_class(info, level));
      ASSERT_TRUE(found) << info.class_name;
      EXPECT_EQ(found->id, info.id);
      EXPECT_EQ(found->level, level);
    }
    ConfigDocument doc =
        read("import coreai_opt\nc = " + opscope::coreai::config_class(info, ConfigLevel::Top) +
             "(global_config={})\n");
    EXPECT_EQ(doc.root, info.id) << info.class_name;
  }
  for (const char* near :
       {"Config", "ModuleConfig", "OpModuleQuantizerConfig", "ModuleOpQuantizerConfig",
        "QuantizerConfigs", "XQuantizerConfig", "Quantizer", "OpConfig"})
    EXPECT_FALSE(opscope::coreai::find_config_class(near)) << near;
  ConfigDocument near = read("import coreai_opt\nc = OpModuleQuantizerConfig(global_config={})\n");
  EXPECT_TRUE(near.keys.empty());
  EXPECT_EQ(near.root, Compressor::None);
}
