// What a user sees for a recipe: the Gemma 3 `ignore` that matches nothing with its fix, the
// note about quantizing the head and embeddings, hover counts, completion of names, patterns
// and classes, and one module's verdict.
#include "opscope/dialects/llmcompressor/features.h"
#include "tiny_gemma3.h"

#include <gtest/gtest.h>

namespace opscope::dialects::llmcompressor {
namespace {

using testing::tiny_gemma3;

struct Checked {
  Modifier modifier;
  Resolution resolution;
  std::vector<Diagnostic> findings;
};

Checked check(const std::string& yaml, const index::Index& model,
              const std::string& path = "recipe.yaml") {
  std::vector<Modifier> read = read_llmcompressor_configs(path, yaml);
  EXPECT_EQ(read.size(), 1u);
  Checked c{read.front(), {}, {}};
  c.resolution = resolve(c.modifier, model);
  c.findings = diagnose(c.modifier, c.resolution, model);
  return c;
}

const Diagnostic* with_code(const std::vector<Diagnostic>& fs, const std::string& code) {
  for (const Diagnostic& f : fs)
    if (f.code == code)
      return &f;
  return nullptr;
}

TEST(LlmcompressorFeatures, AnIgnoreThatMatchesNothingOffersTheFullName) {
  index::Index model = tiny_gemma3();
  Checked c = check("GPTQModifier:\n  targets: [Linear]\n  ignore: [embed_tokens, gate_projj]\n"
                    "  scheme: W4A16\n",
                    model);
  std::vector<const Diagnostic*> no_match;
  for (const Diagnostic& f : c.findings)
    if (f.code == "no-match")
      no_match.push_back(&f);
  ASSERT_EQ(no_match.size(), 2u);
  EXPECT_EQ(no_match[0]->severity, Severity::Warning);
  EXPECT_NE(no_match[0]->message.find("did you mean `model.language_model.embed_tokens`"),
            std::string::npos)
      << no_match[0]->message;
  ASSERT_FALSE(no_match[0]->fixes.empty());
  EXPECT_EQ(no_match[0]->fixes[0].edit.new_text, "model.language_model.embed_tokens");
  // A typo: the nearest real name.
  EXPECT_NE(no_match[1]->message.find("gate_proj"), std::string::npos) << no_match[1]->message;
}

TEST(LlmcompressorFeatures, AHeadNamedForAnotherLayoutOffersTheOneTheModelHas) {
  // Gemma 3 checkpoints made with transformers 4 name the head `language_model.lm_head`;
  // transformers 5 puts it at the root. A checkpoint's ignore entry that no longer matches.
  index::Index model = tiny_gemma3();
  Checked c = check(R"({"quantization_config": {"ignore": ["language_model.lm_head"],
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4,
    "group_size": 16}}}}})",
                    model, "config.json");
  const Diagnostic* f = with_code(c.findings, "no-match");
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("did you mean `lm_head`"), std::string::npos) << f->message;
  ASSERT_EQ(f->fixes.size(), 1u);
  EXPECT_EQ(f->fixes[0].edit.new_text, "lm_head");
  // Unfixed, the head is quantized although the checkpoint meant to keep it.
  EXPECT_EQ(explain_module(c.modifier, c.resolution, model, model.find_module_object("lm_head")),
            "w4 int group 16, a16 (group_0, by `Linear`)");
}

TEST(LlmcompressorFeatures, QuantizingTheHeadAndEmbeddingsByClassIsNoted) {
  index::Index model = tiny_gemma3();
  Checked c =
      check("QuantizationModifier:\n  targets: [Linear, Embedding]\n  scheme: W8A16\n", model);
  const Diagnostic* note = with_code(c.findings, "head-quantized");
  ASSERT_TRUE(note);
  EXPECT_EQ(note->severity, Severity::Information);
  EXPECT_NE(note->message.find("`lm_head`"), std::string::npos);
  EXPECT_NE(note->message.find("`model.language_model.embed_tokens`"), std::string::npos);
  // Named explicitly: no note.
  Checked named = check("QuantizationModifier:\n  targets: [lm_head]\n  scheme: W8A16\n", model);
  EXPECT_FALSE(with_code(named.findings, "head-quantized"));
}

TEST(LlmcompressorFeatures, ATargetOfBlocksQuantizesNothingInside) {
  index::Index model = tiny_gemma3();
  Checked c = check("QuantizationModifier:\n  targets: [Gemma3DecoderLayer, Linear]\n"
                    "  scheme: W8A16\n",
                    model);
  const Diagnostic* f = with_code(c.findings, "not-quantizable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::Warning);
  EXPECT_EQ(f->range.start.line, 1);
  EXPECT_NE(f->message.find("`Gemma3DecoderLayer` matches 1 module (Gemma3DecoderLayer)"),
            std::string::npos)
      << f->message;
  // `Linear` quantizes: no warning about it.
  int warnings = 0;
  for (const Diagnostic& x : c.findings)
    warnings += x.code == "not-quantizable";
  EXPECT_EQ(warnings, 1);
}

TEST(LlmcompressorFeatures, TargetedAndIgnoredIsSaid) {
  index::Index model = tiny_gemma3();
  Checked c = check("QuantizationModifier:\n  targets: [lm_head, Linear]\n  ignore: [\"re:lm\"]\n"
                    "  scheme: W8A16\n",
                    model);
  const Diagnostic* both = with_code(c.findings, "targeted-and-ignored");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->severity, Severity::Information);
  EXPECT_EQ(explain_module(c.modifier, c.resolution, model, model.find_module_object("lm_head")),
            "ignored by `re:lm` (targeted by `lm_head`)");
  EXPECT_EQ(explain_module(c.modifier, c.resolution, model,
                           model.find_module_object("model.language_model.layers.0.mlp.gate_proj")),
            "w8 int group 128, a16 (group_0, W8A16, by `Linear`)");
}

TEST(LlmcompressorFeatures, HoverCountsTheModulesAnEntryMatches) {
  index::Index model = tiny_gemma3();
  std::string yaml = "quant_stage:\n  quant_modifiers:\n"
                     "    QuantizationModifier:\n      targets: [Linear]\n"
                     "      ignore: [\"re:.*k_proj$\"]\n      scheme: W4A16\n";
  Checked c = check(yaml, model);
  std::optional<Hover> h = hover(c.modifier, c.resolution, model, {3, 17});
  ASSERT_TRUE(h);
  // Nine Linear layers (the head included), two of them ignored.
  EXPECT_NE(h->markdown.find("matches 9 modules; 7 get a scheme"), std::string::npos)
      << h->markdown;
  std::optional<Hover> ig = hover(c.modifier, c.resolution, model, {4, 18});
  ASSERT_TRUE(ig);
  EXPECT_NE(ig->markdown.find("matches 2 modules; leaves out 2 targeted modules"),
            std::string::npos)
      << ig->markdown;
  // On the modifier's name: what it quantizes and the checkpoint it would save (size_test.cpp).
  std::optional<Hover> root = hover(c.modifier, c.resolution, model, {2, 6});
  ASSERT_TRUE(root);
  EXPECT_NE(root->markdown.find("quantizes 7 modules, 2 ignored; projected size:"),
            std::string::npos)
      << root->markdown;
}

TEST(LlmcompressorFeatures, CompletionOffersClassesPatternsAndNames) {
  index::Index model = tiny_gemma3();
  Checked c = check("QuantizationModifier:\n  ignore: [\"q\"]\n", model);
  std::vector<CompletionItem> s = complete(c.modifier, model, {1, 12});
  auto find = [&](const std::string& label) -> const CompletionItem* {
    for (const CompletionItem& x : s)
      if (x.label == label)
        return &x;
    return nullptr;
  };
  const CompletionItem* linear = find("Linear");
  ASSERT_TRUE(linear);
  EXPECT_EQ(linear->detail, "class ×9");
  ASSERT_TRUE(find("re:.*q_proj$"));
  EXPECT_EQ(find("re:.*k_proj$")->detail, "×2 Linear");
  ASSERT_TRUE(find("model.language_model.layers.0.self_attn.q_proj"));
  // The quotes are kept: only the name is replaced.
  EXPECT_EQ(linear->edit.range.start.byte_col, 12);
  EXPECT_EQ(linear->edit.new_text, "Linear");
  EXPECT_EQ(linear->filter_text, "Linear");
  EXPECT_EQ(linear->kind, CompletionItem::Kind::Module);
  EXPECT_TRUE(complete(c.modifier, model, {0, 3}).empty());
}

} // namespace
} // namespace opscope::dialects::llmcompressor
