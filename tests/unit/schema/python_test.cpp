// coreai-opt's models in Python configs: from_dict's dicts and the classes' keyword arguments
// are checked, completed and explained as YAML keys are; values opscope does not evaluate
// (`torch.int8`, a variable) are never reported. (differential_python.py compares the verdicts
// with coreai-opt on thousands of generated programs; these pin ranges, texts and fixes.)
#include "opscope/features/schema_completion.h"
#include "opscope/features/schema_diagnostics.h"
#include "opscope/schema/check.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace opscope {
namespace {

const std::string kImports = "import torch\nfrom coreai_opt.quantization import *\n";

config::ConfigDocument python(const std::string& body) {
  return config::read_config(kImports + body, config::Format::Python);
}

std::vector<schema::Problem> check_python(const std::string& body) {
  return schema::check(python(body), *schema::builtin());
}

// `line` counts from the first line after the imports.
config::Position at(int line, int col) {
  return {line + 2, col};
}

const features::CompletionItem* find(const features::CompletionList& list,
                                     const std::string& label) {
  auto it = std::find_if(list.items.begin(), list.items.end(),
                         [&](const features::CompletionItem& i) { return i.label == label; });
  return it == list.items.end() ? nullptr : &*it;
}

TEST(PythonSchema, AValidConfigWithExpressionsHasNoProblem) {
  auto problems = check_python(R"(AXIS = 0
config = QuantizerConfig(
    global_config=ModuleQuantizerConfig(
        op_state_spec={"weight": QuantizationSpec(dtype=torch.int4, qscheme=QuantizationScheme.SYMMETRIC,
                                                  granularity=PerChannelGranularity(axis=AXIS))},
        op_input_spec=None,
    ),
    module_name_configs={r"layer1\..*": None, "fc": ModuleQuantizerConfig(op_state_spec={0: None} if False else None)},
)
)");
  EXPECT_TRUE(problems.empty()) << problems.front().message;
}

TEST(PythonSchema, AWrongDtypeInAClassCallIsAnErrorAtTheStringWithAFixThatKeepsItAString) {
  std::string body = "spec = ModuleQuantizerConfig(op_state_spec={\"weight\": "
                     "QuantizationSpec(dtype=\"int9\")})\n";
  auto doc = python(body);
  auto diagnostics = features::schema_diagnostics(doc, *schema::builtin());
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "schema-value");
  int col = static_cast<int>(body.find("\"int9\""));
  EXPECT_EQ(diagnostics[0].range.start, at(0, col));
  EXPECT_EQ(diagnostics[0].range.end, at(0, col + 6)); // the quotes are the value's
  ASSERT_FALSE(diagnostics[0].fixes.empty());
  EXPECT_EQ(diagnostics[0].fixes[0].edit.new_text.front(), '"');
}

TEST(PythonSchema, AnUnknownKeywordNamesTheNearestField) {
  std::string body = "g = PerChannelGranularity(axs=0)\n";
  auto problems = check_python(body);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, schema::Problem::Kind::UnknownKey);
  EXPECT_EQ(problems[0].range.start, at(0, static_cast<int>(body.find("axs"))));
  EXPECT_EQ(problems[0].suggestions, std::vector<std::string>{"axis"});
}

TEST(PythonSchema, FromDictDocumentsAreCheckedAsFromYamlDocuments) {
  auto problems = check_python(R"(config = QuantizerConfig.from_dict({
    "quantization_config": {
        "global_config": {"op_state_spec": {"weight": {"dtype": "int4", "n_bits": 4}}},
        "execution_mode": "eager",
    },
    "quantisation_spec": {},
})
)");
  ASSERT_EQ(problems.size(), 2u);
  // n_bits is stripped by QuantizationSpec (a warning); the misspelt top key is refused.
  auto root = std::find_if(problems.begin(), problems.end(), [](const schema::Problem& p) {
    return p.kind == schema::Problem::Kind::Root;
  });
  ASSERT_NE(root, problems.end());
  EXPECT_EQ(root->range.start.line, at(5, 0).line);
  EXPECT_EQ(root->suggestions, std::vector<std::string>{"quantization_spec"});
}

TEST(PythonSchema, AnInstanceOfTheWrongClassIsAnError) {
  auto problems = check_python(
      "m = ModuleQuantizerConfig(op_state_spec={\"weight\": PruningSpec(target_sparsity=0.5)})\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, schema::Problem::Kind::WrongType);
  EXPECT_NE(problems[0].message.find("PruningSpec"), std::string::npos);
}

TEST(PythonSchema, NumbersBooleansAndListsAreTypedAsPythonWritesThem) {
  auto problems = check_python(R"(from coreai_opt.palettization import *
s = PalettizationSpec(n_bits=0x11, enable_per_channel_scale=True, cluster_dim=1_0)
q = QuantizationSpec(float_range=(-1.0, 1.0))
r = QuantizationSpec(float_range=(1, -1))
)");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].kind, schema::Problem::Kind::NotAllowed); // n_bits=17
  EXPECT_NE(problems[0].message.find("`17`"), std::string::npos); // 0x11
  EXPECT_NE(problems[1].message.find("float_min < float_max"), std::string::npos);
}

TEST(PythonSchema, KeywordCompletionInAClassCallOffersTheFieldsLeftWithTheirDocs) {
  std::string body = "s = QuantizationSpec(qscheme=\"symmetric\", )\n";
  auto doc = python(body);
  auto list = features::schema_complete(doc, at(0, static_cast<int>(body.find(", )") + 2)),
                                        *schema::builtin());
  const features::CompletionItem* dtype = find(list, "dtype");
  ASSERT_NE(dtype, nullptr);
  EXPECT_EQ(dtype->edit.new_text, "dtype=");
  EXPECT_NE(dtype->documentation.find("Target data type"), std::string::npos);
  EXPECT_EQ(find(list, "qscheme"), nullptr); // already given
}

TEST(PythonSchema, KeywordCompletionWorksWhileTheCallIsStillOpen) {
  std::string body = "cfg = ModuleQuantizerConfig(op_st\n";
  auto doc = python(body);
  auto list =
      features::schema_complete(doc, at(0, static_cast<int>(body.size() - 1)), *schema::builtin());
  const features::CompletionItem* item = find(list, "op_state_spec");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->edit.new_text, "op_state_spec=");
  EXPECT_EQ(item->edit.range.start, at(0, static_cast<int>(body.find("op_st"))));
  EXPECT_EQ(item->edit.range.end, at(0, static_cast<int>(body.size() - 1)));
}

TEST(PythonSchema, ValueCompletionOffersPythonLiterals) {
  std::string body = "s = QuantizationSpec(dtype=\"in\n";
  auto doc = python(body);
  auto list =
      features::schema_complete(doc, at(0, static_cast<int>(body.size() - 1)), *schema::builtin());
  const features::CompletionItem* int4 = find(list, "int4");
  ASSERT_NE(int4, nullptr);
  EXPECT_EQ(int4->edit.new_text, "\"int4\"");
  EXPECT_EQ(int4->filter_text, "\"int4\"");
  EXPECT_EQ(int4->edit.range.start, at(0, static_cast<int>(body.find('"'))));
  EXPECT_EQ(int4->edit.range.end, at(0, static_cast<int>(body.size() - 1))); // no added quote
  EXPECT_EQ(find(list, "int9"), nullptr);

  std::string flag = "from coreai_opt.palettization import *\n"
                     "s = PalettizationSpec(enable_per_channel_scale=)\n";
  auto booleans = features::schema_complete(
      python(flag), at(1, static_cast<int>(flag.rfind('=') - flag.find("s = ") + 1)),
      *schema::builtin());
  ASSERT_NE(find(booleans, "true"), nullptr);
  EXPECT_EQ(find(booleans, "true")->edit.new_text, "True");
}

TEST(PythonSchema, KeysOfAFromDictDocumentCompleteInsideTheirQuotes) {
  std::string body = "c = QuantizerConfig.from_dict({\"quantization_config\": "
                     "{\"global_config\": {\"op_state_spec\": {\"weight\": {\"qs\n";
  auto doc = python(body);
  auto list =
      features::schema_complete(doc, at(0, static_cast<int>(body.size() - 1)), *schema::builtin());
  const features::CompletionItem* item = find(list, "qscheme");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->edit.new_text, "qscheme"); // the quote is written already
}

TEST(PythonSchema, HoverOnAKeywordShowsTheFieldsDocumentation) {
  std::string body = "s = QuantizationSpec(qscheme=\"asymmetric\")\n";
  auto doc = python(body);
  auto hover = features::schema_hover(doc, at(0, static_cast<int>(body.find("qscheme") + 2)),
                                      *schema::builtin());
  ASSERT_TRUE(hover.has_value());
  EXPECT_NE(hover->markdown.find("**qscheme**"), std::string::npos);
  EXPECT_NE(hover->markdown.find("Default when left out"), std::string::npos);
  auto on_value = features::schema_hover(doc, at(0, static_cast<int>(body.find("asymmetric") + 1)),
                                         *schema::builtin());
  ASSERT_TRUE(on_value.has_value());
  EXPECT_NE(on_value->markdown.find("**qscheme**"), std::string::npos);
}

// Every prefix of a file being typed (the state an editor asks about): completion at its end
// never crashes and edits only the cursor's line, within it; hover and the check answer too.
TEST(PythonSchema, EveryPrefixCompletesOnTheCursorsLineOnly) {
  const std::string program = kImports + R"(from coreai_opt.quantization.spec.granularity import *
config = QuantizerConfig(
    global_config=ModuleQuantizerConfig(op_state_spec={"weight": QuantizationSpec(
        dtype="int4", granularity=PerBlockGranularity(block_size=32), float_range=(-1, 1))}),
    module_name_configs={"fc": ModuleQuantizerConfig(op_input_spec={0: None}, **extra)},
)
d = QuantizerConfig.from_dict({"quantization_config": {"global_config": {"op_state_spec": {
    "weight": {"dtype": torch.int8, "qscheme": f"{s}"}}}}})
)";
  std::size_t offered = 0;
  for (std::size_t end = 0; end <= program.size(); ++end) {
    std::string text = program.substr(0, end);
    auto doc = config::read_config(text, config::Format::Python);
    std::size_t line_start = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    config::Position cursor{static_cast<int>(std::count(text.begin(), text.end(), '\n')),
                            static_cast<int>(end - line_start)};
    auto list = features::schema_complete(doc, cursor, *schema::builtin());
    offered += !list.items.empty();
    for (const features::CompletionItem& item : list.items) {
      ASSERT_EQ(item.edit.range.start.line, cursor.line) << text;
      ASSERT_EQ(item.edit.range.end.line, cursor.line) << text;
      ASSERT_LE(item.edit.range.start.byte_col, cursor.byte_col) << text;
      ASSERT_LE(item.edit.range.end.byte_col, cursor.byte_col) << text; // nothing after it
    }
    features::schema_hover(doc, {cursor.line, cursor.byte_col / 2}, *schema::builtin());
    schema::check(doc, *schema::builtin());
  }
  EXPECT_GT(offered, 50u); // keywords and values were offered while the calls were typed
}

} // namespace
} // namespace opscope
