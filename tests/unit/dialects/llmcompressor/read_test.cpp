// Reading llm-compressor configs where users write them: a staged recipe, the flat form, a
// Python oneshot script's modifier calls, a checkpoint's quantization_config; every name with
// where it is written.
#include "opscope/dialects/llmcompressor/config.h"

#include <gtest/gtest.h>

namespace opscope::dialects::llmcompressor {
namespace {

std::vector<std::string> texts(const std::vector<Written>& w) {
  std::vector<std::string> out;
  for (const Written& x : w)
    out.push_back(x.text);
  return out;
}

TEST(LlmcompressorRead, AStagedRecipeWithTwoModifiersAndItsRanges) {
  const std::string recipe = R"(quant_stage:
  quant_modifiers:
    SmoothQuantModifier:
      smoothing_strength: 0.8
      mappings:
        - [["re:.*q_proj", "re:.*k_proj", "re:.*v_proj"], "re:.*input_layernorm"]
    GPTQModifier:
      targets: Linear
      ignore: [lm_head, "re:.*mlp.gate$"]
      scheme: W4A16
)";
  ASSERT_TRUE(looks_like_llmcompressor("recipe.yaml", recipe));
  std::vector<Modifier> read = read_llmcompressor_configs("recipe.yaml", recipe);
  ASSERT_EQ(read.size(), 2u);
  const Modifier& sq = read[0];
  EXPECT_EQ(sq.class_name, "SmoothQuantModifier");
  EXPECT_EQ(sq.stage, "quant_stage");
  EXPECT_TRUE(sq.applied && read[1].applied);
  ASSERT_EQ(sq.mappings.size(), 1u);
  EXPECT_EQ(texts(sq.mappings[0].balance),
            (std::vector<std::string>{"re:.*q_proj", "re:.*k_proj", "re:.*v_proj"}));
  ASSERT_TRUE(sq.mappings[0].smooth);
  EXPECT_EQ(sq.mappings[0].smooth->text, "re:.*input_layernorm");
  const Modifier& gptq = read[1];
  EXPECT_EQ(gptq.class_name, "GPTQModifier");
  EXPECT_TRUE(gptq.targets_set);
  EXPECT_EQ(texts(gptq.targets), (std::vector<std::string>{"Linear"})); // a lone string
  EXPECT_EQ(texts(gptq.ignore), (std::vector<std::string>{"lm_head", "re:.*mlp.gate$"}));
  ASSERT_TRUE(gptq.scheme);
  EXPECT_EQ(gptq.scheme->text, "W4A16");
  // `lm_head` on line 8 (0-based), a plain scalar: its range is the word.
  EXPECT_EQ(gptq.ignore[0].range.start.line, 8);
  EXPECT_EQ(gptq.ignore[0].range.end.byte_col - gptq.ignore[0].range.start.byte_col, 7);
}

TEST(LlmcompressorRead, TheFlatFormWithConfigGroups) {
  const std::string recipe = R"(QuantizationModifier:
  ignore: ["lm_head"]
  config_groups:
    group_0:
      targets: ["Linear"]
      weights: {num_bits: 8, type: float, strategy: channel, dynamic: false, symmetric: true}
      input_activations: {num_bits: 8, type: float, strategy: token, dynamic: true}
)";
  std::vector<Modifier> read = read_llmcompressor_configs("recipe.yaml", recipe);
  ASSERT_EQ(read.size(), 1u);
  const Modifier& m = read.front();
  EXPECT_EQ(m.stage, "");
  EXPECT_FALSE(m.applied); // llm-compressor 0.14 skips a modifier at the root
  ASSERT_EQ(m.config_groups.size(), 1u);
  const ConfigGroup& g = m.config_groups.front();
  EXPECT_EQ(g.name.text, "group_0");
  EXPECT_EQ(texts(g.targets), (std::vector<std::string>{"Linear"}));
  ASSERT_TRUE(g.args.weights && g.args.input_activations);
  EXPECT_EQ(g.args.weights->type, "float");
  EXPECT_EQ(g.args.weights->strategy, "channel");
  EXPECT_EQ(g.args.input_activations->dynamic, "true");
  EXPECT_FALSE(g.args.output_activations);
}

TEST(LlmcompressorRead, PythonModifierCallsPassedToOneshot) {
  const std::string script = R"(from llmcompressor import oneshot
from llmcompressor.modifiers.quantization import GPTQModifier
from llmcompressor.modifiers.awq import AWQModifier

recipe = [
    AWQModifier(duo_scaling=False,
                mappings=[{"smooth_layer": "re:.*input_layernorm$",
                           "balance_layers": ["re:.*q_proj$", "re:.*k_proj$"]}]),
    GPTQModifier(scheme={"W8A8": ["re:.*mlp.*"]}, ignore=IGNORED),
]
oneshot(model=model, recipe=recipe)
)";
  ASSERT_TRUE(looks_like_llmcompressor("quantize.py", script));
  std::vector<Modifier> read = read_llmcompressor_configs("quantize.py", script);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].source, Source::PythonCall);
  EXPECT_EQ(read[0].class_name, "AWQModifier");
  ASSERT_EQ(read[0].mappings.size(), 1u);
  EXPECT_EQ(read[0].mappings[0].smooth->text, "re:.*input_layernorm$");
  EXPECT_EQ(texts(read[0].mappings[0].balance),
            (std::vector<std::string>{"re:.*q_proj$", "re:.*k_proj$"}));
  ASSERT_EQ(read[1].scheme_targets.size(), 1u);
  EXPECT_EQ(read[1].scheme_targets[0].first.text, "W8A8");
  EXPECT_EQ(texts(read[1].scheme_targets[0].second), (std::vector<std::string>{"re:.*mlp.*"}));
  // `ignore=IGNORED`: a variable, said rather than guessed.
  EXPECT_EQ(read[1].unreadable.size(), 1u);
}

TEST(LlmcompressorRead, ACheckpointsQuantizationConfig) {
  const std::string json = R"({
  "architectures": ["Gemma3ForConditionalGeneration"],
  "quantization_config": {
    "quant_method": "compressed-tensors",
    "format": "pack-quantized",
    "ignore": ["lm_head"],
    "config_groups": {"group_0": {"targets": ["Linear"],
      "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128,
                  "symmetric": true, "dynamic": false}}}
  }
})";
  ASSERT_TRUE(looks_like_llmcompressor("config.json", json));
  std::vector<Modifier> read = read_llmcompressor_configs("config.json", json);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].source, Source::CheckpointJson);
  EXPECT_EQ(texts(read[0].ignore), (std::vector<std::string>{"lm_head"}));
  ASSERT_TRUE(read[0].format);
  EXPECT_EQ(read[0].format->text, "pack-quantized");
  ASSERT_EQ(read[0].config_groups.size(), 1u);
  EXPECT_EQ(read[0].config_groups[0].args.weights->group_size, 128);
}

TEST(LlmcompressorRead, OtherFilesAreNotRecipes) {
  EXPECT_FALSE(looks_like_llmcompressor("config.json", R"({"model_type": "llama"})"));
  EXPECT_FALSE(looks_like_llmcompressor("train.yaml", "lora_target: q_proj\n"));
  EXPECT_FALSE(looks_like_llmcompressor("x.py", "print('GPTQModifier')\n"));
  // Half-typed: what can be read, never a throw.
  std::vector<Modifier> read =
      read_llmcompressor_configs("r.yaml", "GPTQModifier:\n  ignore: [lm_head, \n");
  ASSERT_EQ(read.size(), 1u);
}

} // namespace
} // namespace opscope::dialects::llmcompressor
