// What the editor shows for PEFT configs read from real text, on the hand-built Llama.
#include "opscope/dialects/peft/peft.h"
#include "tiny_llama.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace opscope::dialects::peft {
namespace {

using testing::tiny_llama;

PeftConfig read_one(const std::string& script) {
  std::vector<PeftConfig> read = read_peft_configs("train.py", script);
  EXPECT_EQ(read.size(), 1u);
  return read.empty() ? PeftConfig{} : read.front();
}

const Diagnostic* find(const std::vector<Diagnostic>& findings, const std::string& code) {
  for (const Diagnostic& f : findings)
    if (f.code == code)
      return &f;
  return nullptr;
}

TEST(PeftFeatures, ATypoWhileOthersMatchIsAWarningWithTheNearestName) {
  index::Index model = tiny_llama();
  PeftConfig c = read_one("LoraConfig(target_modules=[\"q_proj\", \"v_projj\"])\n");
  std::vector<Diagnostic> found = diagnose(c, resolve(c, model), model);
  const Diagnostic* f = find(found, "no-match");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Warning); // PEFT is silent: q_proj matches
  EXPECT_NE(f->message.find("`v_projj`"), std::string::npos);
  ASSERT_FALSE(f->fixes.empty());
  EXPECT_EQ(f->fixes.front().edit.new_text, "v_proj");
  // The fix replaces the text between the quotes.
  EXPECT_EQ(f->fixes.front().edit.range.start.byte_col, 38);
  EXPECT_EQ(f->fixes.front().edit.range.end.byte_col, 45);
}

TEST(PeftFeatures, NothingMatchingIsAnErrorAsPeftRaises) {
  index::Index model = tiny_llama();
  PeftConfig c = read_one("LoraConfig(target_modules=[\"W_pack\"])\n");
  std::vector<Diagnostic> found = diagnose(c, resolve(c, model), model);
  int errors = 0;
  for (const Diagnostic& f : found)
    errors += f.severity == Severity::Error;
  EXPECT_GE(errors, 1);
  const Diagnostic* f = find(found, "no-match");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Error);
  EXPECT_NE(f->message.find("get_peft_model raises"), std::string::npos);
}

TEST(PeftFeatures, LayerIndexOutOfRangePatternKeyAndLooseSaveSuffix) {
  index::Index model = tiny_llama();
  PeftConfig c = read_one("LoraConfig(target_modules=['q_proj'], layers_to_transform=[1, 7],\n"
                          "  rank_pattern={'down_proj': 4}, modules_to_save=['norm'])\n");
  std::vector<Diagnostic> found = diagnose(c, resolve(c, model), model);
  const Diagnostic* layer = find(found, "layer-out-of-range");
  ASSERT_NE(layer, nullptr);
  EXPECT_NE(layer->message.find("7"), std::string::npos);
  EXPECT_NE(layer->message.find("0 to 1"), std::string::npos);
  const Diagnostic* key = find(found, "pattern-no-match");
  ASSERT_NE(key, nullptr);
  EXPECT_NE(key->message.find("`down_proj`"), std::string::npos); // down_proj is not targeted
  const Diagnostic* save = find(found, "save-suffix");
  ASSERT_NE(save, nullptr);
  EXPECT_NE(save->message.find("input_layernorm"), std::string::npos);
}

TEST(PeftFeatures, HoverShowsWhatAnEntryMatchesAndWhatAllLinearExpandsTo) {
  index::Index model = tiny_llama();
  PeftConfig c = read_one("LoraConfig(target_modules=[\"q_proj\"])\n");
  std::optional<Hover> h = hover(c, resolve(c, model), model, {0, 30});
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("matches 2 modules"), std::string::npos);
  EXPECT_NE(h->markdown.find("model.layers.1.self_attn.q_proj"), std::string::npos);
  EXPECT_FALSE(hover(c, resolve(c, model), model, {0, 2}));

  PeftConfig all = read_one("LoraConfig(target_modules=\"all-linear\")\n");
  std::optional<Hover> expanded = hover(all, resolve(all, model), model, {0, 30});
  ASSERT_TRUE(expanded);
  EXPECT_NE(expanded->markdown.find("8 linear layers"), std::string::npos);
  EXPECT_NE(expanded->markdown.find("out_proj"), std::string::npos);
  EXPECT_EQ(expanded->markdown.find("lm_head"), std::string::npos);
}

TEST(PeftFeatures, CompletionOffersLeafNamesWithCountsAndTypesThenFullNames) {
  index::Index model = tiny_llama();
  PeftConfig c = read_one("LoraConfig(target_modules=[\"q_\"])\n");
  std::vector<CompletionItem> s = complete(c, model, {0, 30});
  auto it =
      std::find_if(s.begin(), s.end(), [](const CompletionItem& x) { return x.label == "q_proj"; });
  ASSERT_NE(it, s.end());
  EXPECT_EQ(it->detail, "×2 Linear");
  EXPECT_EQ(it->edit.range.start.byte_col, 28); // inside the quotes
  EXPECT_EQ(it->edit.range.end.byte_col, 30);
  EXPECT_EQ(it->edit.new_text, "q_proj");
  EXPECT_EQ(it->filter_text, "q_proj");
  EXPECT_EQ(it->kind, CompletionItem::Kind::Module);
  auto offered = [&](const std::string& label) {
    return std::any_of(s.begin(), s.end(),
                       [&](const CompletionItem& x) { return x.label == label; });
  };
  EXPECT_TRUE(offered("model.layers.0.self_attn.q_proj"));
  // Only names that hold what is typed (as the editor filters): on a 70B-shaped model the
  // full names would otherwise sit past the hundred the editor is sent.
  EXPECT_FALSE(offered("model.layers.0.mlp.down_proj"));
  EXPECT_FALSE(offered("k_proj"));
  EXPECT_TRUE(complete(c, model, {0, 3}).empty()); // not in a name
  // Nothing typed yet: every name, leaves first.
  std::vector<CompletionItem> all =
      complete(read_one("LoraConfig(target_modules=[\"\"])\n"), model, {0, 28});
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().sort_text.front(), '0');
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const CompletionItem& x) {
    return x.label == "model.layers.0.mlp.down_proj";
  }));
}

} // namespace
} // namespace opscope::dialects::peft

namespace opscope::dialects::peft {
namespace {

// A keyword LoraConfig does not take fails the script at once (TypeError), after the user has
// waited for the model to load: said as it is typed, with the field meant.
TEST(PeftFields, AKeywordTheClassDoesNotTakeIsAnErrorWithTheFieldMeant) {
  PeftConfig c = read_one("LoraConfig(r=8, target_module=[\"q_proj\"], lora_dropout=0.1)\n");
  std::vector<Diagnostic> found = diagnose_fields(c);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].code, "unknown-field");
  EXPECT_EQ(found[0].severity, Severity::Error);
  EXPECT_NE(found[0].message.find("TypeError"), std::string::npos) << found[0].message;
  ASSERT_FALSE(found[0].fixes.empty());
  EXPECT_EQ(found[0].fixes[0].edit.new_text, "target_modules");
  EXPECT_EQ(found[0].range.start.byte_col, 16);
  EXPECT_EQ(found[0].range.end.byte_col, 29);
}

// from_pretrained drops an adapter_config.json key its class lacks, with a warning: the fix keeps
// the JSON quotes.
TEST(PeftFields, AnAdapterConfigKeyIsAWarningAndItsFixKeepsTheQuotes) {
  std::vector<PeftConfig> read = read_peft_configs(
      "adapter_config.json",
      "{\"peft_type\": \"LORA\", \"target_modules\": [\"q_proj\"], \"lora_dropuot\": 0.1}\n");
  ASSERT_EQ(read.size(), 1u);
  std::vector<Diagnostic> found = diagnose_fields(read[0]);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Warning);
  ASSERT_FALSE(found[0].fixes.empty());
  EXPECT_EQ(found[0].fixes[0].edit.new_text, "\"lora_dropout\"");
}

TEST(PeftFields, HoverOnAKeywordShowsItsTypeAndPeftsHelp) {
  PeftConfig c = read_one("LoraConfig(r=8, target_modules=[\"q_proj\"])\n");
  std::optional<Hover> h = field_hover(c, {0, 11});
  ASSERT_TRUE(h.has_value());
  EXPECT_NE(h->markdown.find("**r** `int`"), std::string::npos) << h->markdown;
  EXPECT_NE(h->markdown.find("Lora attention dimension"), std::string::npos) << h->markdown;
  EXPECT_FALSE(field_hover(c, {0, 33}).has_value()); // inside the target list: not a key
}

// axolotl's keys are axolotl's: not checked against LoraConfig.
TEST(PeftFields, TheFrameworksYamlKeysAreNotPeftFields) {
  std::vector<PeftConfig> read =
      read_peft_configs("axolotl.yaml", "base_model: x\nadapter: lora\nlora_r: 8\n"
                                        "lora_target_modules: [q_proj]\nmicro_batch_size: 2\n");
  ASSERT_EQ(read.size(), 1u);
  EXPECT_TRUE(diagnose_fields(read[0]).empty());
}

} // namespace
} // namespace opscope::dialects::peft

namespace opscope::dialects::peft {
namespace {

std::vector<std::string> labels_at(const std::string& script, config::Position cursor) {
  std::vector<PeftConfig> read = read_peft_configs("train.py", script);
  EXPECT_EQ(read.size(), 1u);
  std::vector<std::string> out;
  if (read.empty())
    return out;
  for (const CompletionItem& item : complete_fields(read[0], script, cursor))
    out.push_back(item.label);
  return out;
}

bool has(const std::vector<std::string>& labels, const std::string& label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

// Typing a keyword of LoraConfig(...) offers its fields, not those already written; in a value, a
// string or a nested bracket it offers none.
TEST(PeftFields, AKeywordBeingTypedIsCompletedWithTheFieldsNotYetWritten) {
  const std::string script = "config = LoraConfig(r=8, lora_d, target_modules=[\"q\", ], "
                             "rank_pattern={\"a\": 1, })\n";
  const int typed = static_cast<int>(script.find("lora_d") + 6);
  std::vector<std::string> labels = labels_at(script, {0, typed});
  EXPECT_TRUE(has(labels, "lora_dropout")) << labels.size();
  EXPECT_FALSE(has(labels, "r"));
  EXPECT_FALSE(has(labels, "lora_alpha")); // does not start with what is typed
  std::vector<PeftConfig> read = read_peft_configs("train.py", script);
  std::vector<CompletionItem> items = complete_fields(read[0], script, {0, typed});
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items[0].edit.new_text, items[0].label + "=");
  EXPECT_EQ(items[0].edit.range.start.byte_col, typed - 6);
  EXPECT_FALSE(items[0].detail.empty()); // its type
  // After `, ` at the call's own level: every field not yet written.
  const int after_comma = static_cast<int>(script.find("8, ") + 3);
  labels = labels_at(script, {0, after_comma});
  EXPECT_TRUE(has(labels, "lora_alpha"));
  EXPECT_FALSE(has(labels, "r"));
  // In the target list, in a string, inside the rank_pattern dict: nothing.
  EXPECT_TRUE(labels_at(script, {0, static_cast<int>(script.find("\"q\", ") + 5)}).empty());
  EXPECT_TRUE(labels_at(script, {0, static_cast<int>(script.find("\"q\"") + 2)}).empty());
  EXPECT_TRUE(labels_at(script, {0, static_cast<int>(script.find("1, ") + 3)}).empty());
  // In the function's name: nothing.
  EXPECT_TRUE(labels_at(script, {0, 14}).empty());
}

} // namespace
} // namespace opscope::dialects::peft
