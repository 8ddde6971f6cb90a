// The dialect as the editor asks it: completion keeps the names holding what is typed, and its
// edits (completion's and the quick fixes') replace a string's contents, never its quotes, also
// where the string is written with escapes (a Python regex `"re:.*layers\\.0$"`), so accepting
// one leaves valid Python and JSON.
#include "../explain_on.h"
#include "opscope/dialects/llmcompressor/dialect.h"
#include "tiny_gemma3.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace opscope::dialects::llmcompressor {
namespace {

using testing::tiny_gemma3;

std::string line_of(const std::string& text, int line) {
  std::size_t at = 0;
  for (int i = 0; i < line; ++i)
    at = text.find('\n', at) + 1;
  return text.substr(at, text.find('\n', at) - at);
}

// `text` with `range` (on one line) replaced by `with`.
std::string edited(const std::string& text, const config::Range& range, const std::string& with) {
  std::string line = line_of(text, range.start.line);
  return line.substr(0, static_cast<std::size_t>(range.start.byte_col)) + with +
         line.substr(static_cast<std::size_t>(range.end.byte_col));
}

const std::string kScript = "recipe = QuantizationModifier(scheme='W4A16', ignore=[\n"
                            "    \"re:.*vision_tower\\\\.encoder\",\n"
                            "    \"language_model.lm_head\",\n"
                            "])\n";

std::vector<std::string> labels(const std::vector<CompletionItem>& found) {
  std::vector<std::string> out;
  for (const CompletionItem& s : found)
    out.push_back(s.label);
  return out;
}

TEST(LlmcompressorDialect, CompletionInAnEscapedStringReplacesItsContentsAndFiltersByWhatIsTyped) {
  const index::Index model = tiny_gemma3();
  auto doc = dialect().read("/w/quantize.py", kScript);
  // After `"re` of the escaped regex entry.
  std::vector<CompletionItem> found = doc->complete(model, {1, 7}, 200);
  std::vector<std::string> names = labels(found);
  ASSERT_FALSE(found.empty());
  EXPECT_TRUE(std::all_of(names.begin(), names.end(),
                          [](const std::string& l) { return l.find('r') != std::string::npos; }));
  EXPECT_NE(std::find(names.begin(), names.end(), "re:.*lm_head$"), names.end());
  EXPECT_EQ(edited(kScript, found.front().edit.range, "lm_head"), "    \"lm_head\",");
  // After `"lan` of the next entry: the decoder's names, not the head nor the classes.
  found = doc->complete(model, {2, 8}, 200);
  names = labels(found);
  EXPECT_NE(std::find(names.begin(), names.end(), "model.language_model.layers.0.self_attn.q_proj"),
            names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "lm_head"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "Linear"), names.end());
}

// The names are kept between keystrokes (each revision is a new document), per model: another
// model, or the same one reloaded with its layout changed, is offered its own names.
TEST(LlmcompressorDialect, CompletionOffersTheNamesOfTheModelAskedAboutAcrossRevisions) {
  const index::Index gemma = tiny_gemma3();
  index::Index renamed = tiny_gemma3(); // the head renamed, as in another layout of Gemma 3
  renamed.module_objects.back().name = "language_model.lm_head";
  renamed.rebuild_lookups();
  auto has = [](const std::vector<CompletionItem>& found, const std::string& label) {
    std::vector<std::string> names = labels(found);
    return std::find(names.begin(), names.end(), label) != names.end();
  };
  std::string text = kScript;
  auto first = dialect().read("/w/quantize.py", text);
  EXPECT_TRUE(has(first->complete(gemma, {2, 6}, 200), "lm_head"));
  text[text.find("lm_head")] = 'L'; // the next keystroke: a new document, the same model
  auto second = dialect().read("/w/quantize.py", text);
  EXPECT_TRUE(has(second->complete(gemma, {2, 6}, 200), "lm_head"));
  std::vector<CompletionItem> other = second->complete(renamed, {2, 6}, 200);
  EXPECT_TRUE(has(other, "language_model.lm_head"));
  EXPECT_FALSE(has(other, "lm_head"));
  EXPECT_TRUE(has(first->complete(gemma, {2, 6}, 200), "lm_head"));
}

// What entries matched is kept between revisions per model and entry text: an edited entry, or
// another model, is matched anew, so a re-check never reports what the last one found.
TEST(LlmcompressorDialect, ARecheckMatchesAnEditedEntryAndAnotherModelAnew) {
  const index::Index gemma = tiny_gemma3();
  index::Index renamed = tiny_gemma3();
  renamed.module_objects.back().name = "language_model.lm_head";
  renamed.rebuild_lookups();
  auto no_match = [](const std::vector<Diagnostic>& found, const std::string& entry) {
    return std::any_of(found.begin(), found.end(), [&](const Diagnostic& f) {
      return f.code == "no-match" && f.message.find("`" + entry + "`") != std::string::npos;
    });
  };
  auto script = [](const std::string& entry) {
    return "recipe = QuantizationModifier(scheme='W4A16', ignore=[\"" + entry + "\"])\n";
  };
  EXPECT_TRUE(no_match(dialect().read("/w/q.py", script("language_model.lm_head"))->diagnose(gemma),
                       "language_model.lm_head"));
  EXPECT_FALSE(no_match(dialect().read("/w/q.py", script("lm_head"))->diagnose(gemma), "lm_head"));
  auto doc = dialect().read("/w/q.py", script("language_model.lm_head"));
  EXPECT_FALSE(no_match(doc->diagnose(renamed), "language_model.lm_head"));
  EXPECT_TRUE(no_match(dialect().read("/w/q.py", script("lm_head"))->diagnose(renamed), "lm_head"));
  EXPECT_TRUE(no_match(doc->diagnose(gemma), "language_model.lm_head"));
}

TEST(LlmcompressorDialect, TheHeadsQuickFixKeepsTheQuotes) {
  const index::Index model = tiny_gemma3();
  const std::string json = "{\"quantization_config\": {\"config_groups\": {\"g\": "
                           "{\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 4}}},\n"
                           "  \"ignore\": [\"language_model.lm_head\"]}}\n";
  auto doc = dialect().read("/w/ckpt/config.json", json);
  EXPECT_EQ(doc->model(), "/w/ckpt");
  std::vector<Diagnostic> found = doc->diagnose(model);
  auto no_match = std::find_if(found.begin(), found.end(),
                               [](const Diagnostic& f) { return f.code == "no-match"; });
  ASSERT_NE(no_match, found.end());
  ASSERT_FALSE(no_match->fixes.empty());
  const Fix& fix = no_match->fixes.front();
  EXPECT_EQ(fix.edit.new_text, "lm_head");
  EXPECT_EQ(edited(json, fix.edit.range, fix.edit.new_text), "  \"ignore\": [\"lm_head\"]}}");
}

// llm-compressor 0.14 reads a recipe's modifiers only under `<x>_stage: <y>_modifiers:`; any
// other is skipped without a word and oneshot saves the model unquantized. opscope says so on
// the modifier's key: an error when nothing would be applied, a warning when something else is.
TEST(LlmcompressorDialect, AModifierOutsideAStagesGroupIsNeverApplied) {
  const index::Index model = tiny_gemma3();
  auto not_read = [&](const std::string& path, const std::string& text) {
    std::vector<Diagnostic> out;
    for (const Diagnostic& f : dialect().read(path, text)->diagnose(model))
      if (f.code == "recipe-not-read")
        out.push_back(f);
    return out;
  };
  std::vector<Diagnostic> flat =
      not_read("/w/recipe.yaml", "QuantizationModifier:\n  scheme: W4A16\n");
  ASSERT_EQ(flat.size(), 1u);
  EXPECT_EQ(flat[0].severity, Severity::Error);
  EXPECT_EQ(flat[0].range.start.line, 0);
  EXPECT_NE(flat[0].message.find("this `QuantizationModifier` is never applied (the checkpoint "
                                 "is saved unquantized)"),
            std::string::npos)
      << flat[0].message;
  EXPECT_EQ(
      not_read("/w/recipe.yaml", "quant_stage:\n  QuantizationModifier: {scheme: W4A16}\n").size(),
      1u);
  EXPECT_EQ(
      not_read("/w/recipe.yaml", "quant_modifiers:\n  QuantizationModifier: {scheme: W4A16}\n")
          .size(),
      1u);
  // Mixed: the staged GPTQModifier is applied, the one right under the stage is not.
  std::vector<Diagnostic> mixed = not_read("/w/recipe.yaml", "a_stage:\n"
                                                             "  a_modifiers:\n"
                                                             "    GPTQModifier: {scheme: W4A16}\n"
                                                             "  SmoothQuantModifier: {}\n");
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].severity, Severity::Warning);
  EXPECT_EQ(mixed[0].range.start.line, 3);
  EXPECT_TRUE(not_read("/w/recipe.yaml", "quant_stage:\n"
                                         "  quant_modifiers:\n"
                                         "    QuantizationModifier: {scheme: W4A16}\n")
                  .empty());
  // A script's modifiers are objects passed to oneshot, not YAML.
  EXPECT_TRUE(not_read("/w/quantize.py", kScript).empty());
  // Hover on the unread modifier's name agrees with the diagnostic, not with what it would do.
  std::optional<Hover> hover =
      dialect()
          .read("/w/recipe.yaml", "QuantizationModifier:\n  scheme: W4A16\n")
          ->hover(model, {0, 3});
  ASSERT_TRUE(hover);
  EXPECT_NE(hover->markdown.find("is never applied"), std::string::npos) << hover->markdown;
  EXPECT_EQ(hover->markdown.find("checkpoint"), std::string::npos) << hover->markdown;
}

// The quick fix of recipe-not-read puts the modifiers where llm-compressor reads them, keeping
// the recipe's indentation and comments: each form's text after the fix, as the editor applies
// it (tests/dialects/test_llmcompressor_recipe_forms.py checks thousands against
// Recipe.create_instance).
TEST(LlmcompressorDialect, TheNotReadQuickFixWrapsOrMovesTheModifiersIntoAStagesGroup) {
  const index::Index model = tiny_gemma3();
  auto fixed = [&](const std::string& path, const std::string& text) -> std::string {
    for (const Diagnostic& f : dialect().read(path, text)->diagnose(model))
      if (f.code == "recipe-not-read" && !f.fixes.empty()) {
        const Fix& fix = f.fixes.front();
        std::size_t at[2] = {0, 0};
        const config::Position ends[2] = {fix.edit.range.start, fix.edit.range.end};
        for (int k = 0; k < 2; ++k) {
          for (int line = 0; line < ends[k].line; ++line)
            at[k] = text.find('\n', at[k]) + 1;
          at[k] += static_cast<std::size_t>(ends[k].byte_col);
        }
        return fix.title + "\n" + text.substr(0, at[0]) + fix.edit.new_text + text.substr(at[1]);
      }
    return "no fix";
  };
  // The root `*_modifiers` group: wrapped in a stage.
  EXPECT_EQ(fixed("/w/recipe.yaml", "quant_modifiers:  # W4A16\n"
                                    "  GPTQModifier:\n"
                                    "    scheme: W4A16\n"),
            "Wrap in `quant_stage:`\n"
            "quant_stage:\n"
            "  quant_modifiers:  # W4A16\n"
            "    GPTQModifier:\n"
            "      scheme: W4A16\n");
  // Right under a stage, before its group (3-space indents): a group of its own, in place, so
  // that SmoothQuant still runs before GPTQ.
  EXPECT_EQ(fixed("/w/recipe.yaml", "quant_stage:\n"
                                    "   SmoothQuantModifier:\n"
                                    "      smoothing_strength: 0.8\n"
                                    "   quant_modifiers:\n"
                                    "      GPTQModifier: {scheme: W8A8}\n"),
            "Wrap in `quant_2_modifiers:`\n"
            "quant_stage:\n"
            "   quant_2_modifiers:\n"
            "      SmoothQuantModifier:\n"
            "         smoothing_strength: 0.8\n"
            "   quant_modifiers:\n"
            "      GPTQModifier: {scheme: W8A8}\n");
  // Under a key that is no stage: moved out to a stage right after it.
  EXPECT_EQ(fixed("/w/recipe.yaml", "stage_0:\n"
                                    "  GPTQModifier:\n"
                                    "    scheme: W4A16\n"
                                    "args: {n: 1}\n"),
            "Move to `quant_stage: quant_modifiers:`\n"
            "stage_0:\n"
            "quant_stage:\n"
            "  quant_modifiers:\n"
            "    GPTQModifier:\n"
            "      scheme: W4A16\n"
            "args: {n: 1}\n");
  // JSON, flat: the keys around it, named as llm-compressor's examples name a sparsity stage.
  EXPECT_EQ(fixed("/w/recipe.json", "{\"SparseGPTModifier\": {\"sparsity\": 0.5}}\n"),
            "Wrap in `sparsity_stage: sparsity_modifiers:`\n"
            "{\"sparsity_stage\": {\"sparsity_modifiers\": {\"SparseGPTModifier\": {\"sparsity\": "
            "0.5}}}}\n");
}

// `explain`'s table is read down its columns: a class name longer than the others
// (Gemma3TextScaledWordEmbedding, NonDynamicallyQuantizableLinear) widens its column instead
// of pushing its row's scheme out of line.
TEST(LlmcompressorDialect, ExplainsColumnsLineUpPastALongClassName) {
  const index::Index model = tiny_gemma3();
  const std::string recipe = "quant_stage:\n"
                             "  quant_modifiers:\n"
                             "    QuantizationModifier:\n"
                             "      targets: [Linear, Embedding]\n"
                             "      scheme: W4A16\n";
  auto doc = dialect().read("/w/recipe.yaml", recipe);
  std::ostringstream out, err;
  test_hosts::explain_on(*doc, "/w/recipe.yaml", model, /*json=*/false, out, err);
  std::istringstream lines(out.str());
  std::string line;
  std::size_t scheme_column = std::string::npos;
  int rows = 0;
  bool long_name_seen = false;
  while (std::getline(lines, line)) {
    if (line.rfind("  module", 0) == 0) {
      scheme_column = line.find("scheme");
      continue;
    }
    if (scheme_column == std::string::npos || line.rfind("  ", 0) != 0)
      continue;
    ++rows;
    long_name_seen |= line.find("Gemma3TextScaledWordEmbedding") != std::string::npos;
    ASSERT_GT(line.size(), scheme_column) << line;
    EXPECT_EQ(line.substr(scheme_column - 2, 2), "  ") << line;
    EXPECT_NE(line[scheme_column], ' ') << line;
  }
  EXPECT_GT(rows, 1) << out.str();
  EXPECT_TRUE(long_name_seen) << out.str();
}

} // namespace
} // namespace opscope::dialects::llmcompressor

namespace opscope::dialects::llmcompressor {
namespace {

// A recipe PyYAML would refuse is said where, before any model has loaded: the user learns of the
// typo without waiting for the model (or when there is none).
TEST(LlmCompressorDialect, ARecipePyYamlRefusesIsAnErrorBeforeAnyModel) {
  const std::string recipe = "quant_stage:\n"
                             "  quant_modifiers:\n"
                             "    QuantizationModifier:\n"
                             "      targets: [\"Linear\"\n"
                             "      scheme: W4A16\n";
  std::shared_ptr<const DialectDocument> document = dialect().read("recipe.yaml", recipe);
  ASSERT_FALSE(document->syntax_problems().empty());
  std::vector<Diagnostic> found = document->diagnostics(Context{});
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front().code, "syntax");
  EXPECT_EQ(found.front().severity, Severity::Error);
  EXPECT_GE(found.front().range.start.line, 3);
}

} // namespace
} // namespace opscope::dialects::llmcompressor
