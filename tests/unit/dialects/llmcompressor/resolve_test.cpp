// compressed-tensors' matching on a hand-built two-layer Llama: which modules get which
// scheme, what ignore leaves out, the most specific target deciding, and the recipes
// llm-compressor refuses.
#include "opscope/dialects/llmcompressor/resolve.h"
#include "tiny_gemma3.h"

#include <gtest/gtest.h>

#include <map>

namespace opscope::dialects::llmcompressor {
namespace {

using testing::tiny_llama;

Modifier recipe(const std::string& yaml) {
  std::vector<Modifier> read = read_llmcompressor_configs("recipe.yaml", yaml);
  EXPECT_EQ(read.size(), 1u) << yaml;
  return read.empty() ? Modifier{} : read.front();
}

// name -> signature of the scheme it gets.
std::map<std::string, std::string> schemes(const Resolution& r, const index::Index& model) {
  std::map<std::string, std::string> out;
  for (const Applied& a : r.applied)
    out[model.named_modules()[static_cast<std::size_t>(a.module)].name] =
        signature(r.groups[static_cast<std::size_t>(a.group)].scheme);
  return out;
}

TEST(LlmcompressorResolve, APresetOnLinearLayersWithTheHeadIgnored) {
  index::Index model = tiny_llama();
  Modifier m = recipe("GPTQModifier:\n  targets: [Linear]\n  ignore: [lm_head]\n  scheme: W4A16\n");
  Resolution r = resolve(m, model);
  ASSERT_FALSE(r.error) << *r.error;
  auto got = schemes(r, model);
  // Four Linear layers per block, out_proj a Linear by its bases; not the head, not the
  // embedding (not targeted).
  EXPECT_EQ(got.size(), 8u);
  EXPECT_EQ(got["model.layers.1.self_attn.out_proj"], "w4i:group:128|-|-");
  EXPECT_FALSE(got.count("lm_head"));
  ASSERT_EQ(r.ignored.size(), 1u);
  EXPECT_EQ(model.named_modules()[static_cast<std::size_t>(r.ignored[0].module)].name, "lm_head");
  EXPECT_EQ(r.ignored[0].ignore_entry, 0);
}

TEST(LlmcompressorResolve, TheMostSpecificTargetDecides) {
  index::Index model = tiny_llama();
  // Exact names before `re:` patterns before class names, whatever the group order.
  Modifier m = recipe(R"(QuantizationModifier:
  config_groups:
    g8:
      targets: [Linear]
      weights: {num_bits: 8, strategy: channel}
    g4:
      targets: ["re:.*q_proj$"]
      weights: {num_bits: 4, group_size: 16}
    g2:
      targets: [model.layers.0.self_attn.q_proj]
      weights: {num_bits: 2, strategy: tensor}
)");
  Resolution r = resolve(m, model);
  ASSERT_FALSE(r.error) << *r.error;
  auto got = schemes(r, model);
  EXPECT_EQ(got["model.layers.0.self_attn.q_proj"], "w2i:tensor|-|-");
  EXPECT_EQ(got["model.layers.1.self_attn.q_proj"], "w4i:group:16|-|-");
  EXPECT_EQ(got["model.layers.1.mlp.down_proj"], "w8i:channel|-|-");
  EXPECT_EQ(got["lm_head"], "w8i:channel|-|-");
}

TEST(LlmcompressorResolve, ReMatchIsAnchoredAtTheStartOnly) {
  index::Index model = tiny_llama();
  // `re:q_proj` matches nothing (names start with model.); `re:model.*proj` matches without $.
  Modifier m = recipe("QuantizationModifier:\n  targets: [\"re:q_proj\", \"re:model.*down\"]\n"
                      "  scheme: FP8_DYNAMIC\n");
  Resolution r = resolve(m, model);
  ASSERT_FALSE(r.error);
  EXPECT_TRUE(r.target_matches[0].empty());
  auto got = schemes(r, model);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(got["model.layers.0.mlp.down_proj"], "w8f:channel|a8f:token|-");
}

TEST(LlmcompressorResolve, AttentionGetsASchemeOnlyWhenNarrowlyMatched) {
  index::Index model = tiny_llama();
  Resolution narrow =
      resolve(recipe("QuantizationModifier:\n  targets: [LlamaAttention]\n  scheme: FP8\n"), model);
  ASSERT_EQ(narrow.applied.size(), 2u);
  EXPECT_TRUE(narrow.applied[0].attention);
  // A pattern that also matches the projections inside is not narrow: the attention module is
  // left as it is, its Linear layers are quantized.
  Resolution wide = resolve(
      recipe("QuantizationModifier:\n  targets: [\"re:.*self_attn.*\"]\n  scheme: FP8\n"), model);
  EXPECT_EQ(wide.untouched.size(), 2u);
  EXPECT_EQ(wide.applied.size(), 6u);
}

TEST(LlmcompressorResolve, RefusedRecipes) {
  index::Index model = tiny_llama();
  auto code = [&](const std::string& yaml) {
    Resolution r = resolve(recipe(yaml), model);
    return r.error ? r.error_code : std::string("none");
  };
  EXPECT_EQ(code("QuantizationModifier:\n  scheme: W4A15\n"), "scheme");
  // In llm-compressor 0.14 AWQ is a transform: a scheme on it is an unknown field.
  EXPECT_EQ(code("AWQModifier:\n  scheme: W4A16\n  mappings: []\n"), "field");
  // Nothing but the defaults: QuantizationModifier has nothing to do.
  EXPECT_EQ(code("QuantizationModifier:\n  targets: [Linear]\n"), "no-config");
  // A kv-cache scheme alone is a config.
  EXPECT_EQ(code("QuantizationModifier:\n  kv_cache_scheme: {num_bits: 8, type: float}\n"), "none");
  EXPECT_EQ(code("QuantizationModifier:\n  scheme: W4A16\n  config_groups:\n    g:\n"
                 "      targets: [Linear]\n"),
            "scheme-and-groups");
  EXPECT_EQ(code("QuantizationModifier:\n  config_groups:\n    g:\n      targets: [Linear]\n"
                 "      weights: {num_bits: 4, strategy: group}\n"),
            "args");
  // A bad pattern is reached on the first module (the model itself).
  Resolution bad = resolve(recipe("QuantizationModifier:\n  targets: [\"re:(q_proj\"]\n"), model);
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error_code, "regex");
  EXPECT_NE(bad.error->find("missing )"), std::string::npos) << *bad.error;
  // Where, counted as Python's re.error counts it (after `re:`).
  EXPECT_NE(bad.error->find("at position 0 of the pattern"), std::string::npos) << *bad.error;
  Resolution mid = resolve(recipe("QuantizationModifier:\n  targets: [\"re:.*(q|k\"]\n"), model);
  ASSERT_TRUE(mid.error);
  EXPECT_NE(mid.error->find("at position 2 of the pattern"), std::string::npos) << *mid.error;
  // One that nothing reaches does not raise: every targeted module is ignored by `Linear` first.
  EXPECT_EQ(code("QuantizationModifier:\n  targets: [Linear]\n  ignore: [Linear, \"re:[\"]\n"),
            "none");
  // 24 does not divide 32 columns; bypass_divisibility_checks lets it through.
  std::string grouped = "QuantizationModifier:\n  config_groups:\n    g:\n      targets: [Linear]\n"
                        "      weights: {num_bits: 4, group_size: 24}\n";
  EXPECT_EQ(code(grouped), "group-size");
  EXPECT_EQ(code(grouped + "  bypass_divisibility_checks: true\n"), "none");
}

TEST(LlmcompressorResolve, MappingsPairWithinABlockOrRaise) {
  index::Index model = tiny_llama();
  Resolution ok = resolve(recipe(R"(SmoothQuantModifier:
  mappings:
    - [["re:.*q_proj", "re:.*v_proj"], "re:.*input_layernorm"]
)"),
                          model);
  ASSERT_FALSE(ok.error) << *ok.error;
  ASSERT_EQ(ok.mappings.size(), 1u);
  ASSERT_EQ(ok.mappings[0].sets.size(), 2u); // one per decoder layer
  const auto& first = ok.mappings[0].sets[0];
  EXPECT_EQ(model.named_modules()[static_cast<std::size_t>(first[0][0])].name,
            "model.layers.0.input_layernorm");
  // Two smooth layers in one set: the head is shared by both blocks' down_proj.
  Resolution bad = resolve(recipe(R"(SmoothQuantModifier:
  mappings:
    - [["lm_head"], "re:.*down_proj"]
)"),
                           model);
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error_code, "mapping");
}

} // namespace
} // namespace opscope::dialects::llmcompressor
