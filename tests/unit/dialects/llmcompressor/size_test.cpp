// The saved checkpoint's tensors as compressed-tensors' compressors write them, on the
// hand-built two-layer Llama (float32 weights): the tensors one quantized Linear becomes per
// format, a subclass of Linear left dense with its qparams, a tied head stored once or twice,
// and no size for a modifier llm-compressor refuses. tests/dialects/test_llmcompressor_size.py
// checks the totals against real saved checkpoints.
#include "opscope/dialects/llmcompressor/features.h"
#include "opscope/dialects/llmcompressor/size.h"
#include "tiny_gemma3.h"

#include <gtest/gtest.h>

#include <map>

namespace opscope::dialects::llmcompressor {
namespace {

using testing::tiny_llama;

std::vector<Modifier> recipe(const std::string& yaml) {
  return read_llmcompressor_configs("recipe.yaml", yaml);
}

ProjectedCheckpoint project(const std::vector<Modifier>& modifiers, const index::Index& model) {
  std::vector<Resolution> resolutions;
  for (const Modifier& m : modifiers)
    resolutions.push_back(resolve(m, model));
  return project_checkpoint(modifiers, resolutions, model);
}

// "name dtype [d0, d1]" for each tensor of one module.
std::map<std::string, std::string> tensors_of(const ProjectedCheckpoint& size,
                                              const index::Index& model, const std::string& name) {
  std::map<std::string, std::string> out;
  for (const ModuleProjection& p : size.modules) {
    if (model.named_modules()[static_cast<std::size_t>(p.module)].name != name)
      continue;
    for (const index::Parameter& t : p.compressed.tensors) {
      std::string shape;
      for (std::int64_t d : t.shape)
        shape += (shape.empty() ? "" : ",") + std::to_string(d);
      out[t.name] = t.dtype + " [" + shape + "]";
    }
  }
  return out;
}

std::int64_t all_bytes(const index::Index& model) {
  std::int64_t total = 0;
  for (const index::Parameter& p : model.parameters)
    total += p.numel() * p.element_bits() / 8;
  return total;
}

const char* kGroup32 =
    "QuantizationModifier:\n"
    "  ignore: [lm_head]\n"
    "  config_groups:\n"
    "    group_0:\n"
    "      targets: [Linear]\n"
    "      weights: {num_bits: 4, type: int, strategy: group, group_size: 32%s}\n";

std::string group32(const std::string& extra = "") {
  std::string text(kGroup32);
  text.replace(text.find("%s"), 2, extra);
  return text;
}

TEST(LlmcompressorSize, FourBitGroupsArePackedIntoInt32WithScalesAtTheWeightsDtype) {
  index::Index model = tiny_llama();
  ProjectedCheckpoint size = project(recipe(group32()), model);
  ASSERT_EQ(size.unavailable, "");
  EXPECT_EQ(size.format, "pack-quantized");
  // q_proj [32, 32]: 32 * 4 bits = four int32 words a row; one float32 scale per row and group;
  // symmetric, so no zero point.
  EXPECT_EQ(tensors_of(size, model, "model.layers.0.self_attn.q_proj"),
            (std::map<std::string, std::string>{{"weight_packed", "int32 [32,4]"},
                                                {"weight_scale", "float32 [32,1]"},
                                                {"weight_shape", "int64 [2]"}}));
  // down_proj [32, 64]: two groups a row.
  EXPECT_EQ(tensors_of(size, model, "model.layers.1.mlp.down_proj")["weight_scale"],
            "float32 [32,2]");
  EXPECT_EQ(size.bytes_before, all_bytes(model));
  EXPECT_LT(size.bytes_after, size.bytes_before);
  EXPECT_NEAR(size.bpw_before, 32.0, 1e-9);
}

TEST(LlmcompressorSize, AsymmetricZeroPointsArePackedAlongTheRows) {
  index::Index model = tiny_llama();
  ProjectedCheckpoint size = project(recipe(group32(", symmetric: false")), model);
  ASSERT_EQ(size.unavailable, "");
  // 32 rows of 4-bit zero points: 128 bits, four int32 words per group column.
  EXPECT_EQ(tensors_of(size, model, "model.layers.1.mlp.down_proj")["weight_zero_point"],
            "int32 [4,2]");
}

TEST(LlmcompressorSize, ASubclassOfLinearIsNotCompressedAndKeepsItsQparams) {
  // COMPRESSIBLE_MODULE_TYPES is tested by exact class: out_proj, a
  // NonDynamicallyQuantizableLinear, gets the scheme but the dense format, which saves the
  // weight as it is with the scale and the (forced) zero point.
  index::Index model = tiny_llama();
  ProjectedCheckpoint size = project(recipe(group32()), model);
  EXPECT_EQ(tensors_of(size, model, "model.layers.0.self_attn.out_proj"),
            (std::map<std::string, std::string>{{"weight", "float32 [32,32]"},
                                                {"weight_scale", "float32 [32,1]"},
                                                {"weight_zero_point", "int8 [32,1]"}}));
}

TEST(LlmcompressorSize, PresetsPickTheirCompressor) {
  index::Index model = tiny_llama();
  auto with = [&](const std::string& scheme) {
    return project(recipe("QuantizationModifier:\n  targets: [Linear]\n  ignore: [lm_head]\n"
                          "  scheme: " +
                          scheme + "\n"),
                   model);
  };
  ProjectedCheckpoint w8a8 = with("W8A8");
  EXPECT_EQ(w8a8.format, "int-quantized");
  EXPECT_EQ(tensors_of(w8a8, model, "model.layers.0.self_attn.v_proj"),
            (std::map<std::string, std::string>{{"weight", "int8 [16,32]"},
                                                {"weight_scale", "float32 [16,1]"}}));
  ProjectedCheckpoint fp8 = with("FP8_DYNAMIC");
  EXPECT_EQ(fp8.format, "float-quantized");
  EXPECT_EQ(tensors_of(fp8, model, "model.layers.0.self_attn.v_proj")["weight"],
            "float8_e4m3fn [16,32]");
  ProjectedCheckpoint nvfp4 = with("NVFP4A16");
  EXPECT_EQ(nvfp4.format, "nvfp4-pack-quantized");
  EXPECT_EQ(tensors_of(nvfp4, model, "model.layers.0.self_attn.v_proj"),
            (std::map<std::string, std::string>{{"weight_packed", "uint8 [16,16]"},
                                                {"weight_scale", "float8_e4m3fn [16,2]"},
                                                {"weight_global_scale", "float32 [1]"}}));
  ProjectedCheckpoint block = with("FP8_BLOCK");
  EXPECT_EQ(tensors_of(block, model, "model.layers.1.mlp.down_proj")["weight_scale"],
            "float32 [1,1]");
}

TEST(LlmcompressorSize, ATiedHeadIsSavedTwiceOnlyWhenItsOwnersDiffer) {
  index::Index model = tiny_llama();
  // lm_head shares the embedding's tensor (tie_word_embeddings).
  auto head = std::find_if(model.parameters.begin(), model.parameters.end(),
                           [](const index::Parameter& p) { return p.name == "lm_head.weight"; });
  model.parameters.erase(head);
  for (index::Parameter& p : model.parameters)
    if (p.name == "model.embed_tokens.weight")
      p.aliases.push_back("lm_head.weight");
  model.rebuild_lookups();
  std::int64_t table = 128 * 32 * 4;
  auto project_on = [&](const std::string& targets) {
    return project(recipe("QuantizationModifier:\n  targets: " + targets +
                          "\n  scheme: W8A16\n  bypass_divisibility_checks: true\n"),
                   model);
  };
  // The head quantized, the embedding not: llm-compressor unties them, both are saved.
  ProjectedCheckpoint head_only = project_on("[Linear]");
  ASSERT_EQ(head_only.unavailable, "");
  std::int64_t head_bytes = 0;
  for (const ModuleProjection& p : head_only.modules)
    if (model.named_modules()[static_cast<std::size_t>(p.module)].name == "lm_head")
      head_bytes = p.compressed.bytes_after;
  ASSERT_GT(head_bytes, 0);
  EXPECT_LT(head_bytes, table);
  // Both quantized alike: re-tied, one copy.
  ProjectedCheckpoint both = project_on("[Linear, Embedding]");
  ASSERT_EQ(both.unavailable, "");
  EXPECT_EQ(head_only.bytes_after - both.bytes_after, table);
}

TEST(LlmcompressorSize, ARefusedModifierSavesNothing) {
  index::Index model = tiny_llama();
  ProjectedCheckpoint size =
      project(recipe("QuantizationModifier:\n  targets: [Linear]\n  scheme: W4A17\n"), model);
  EXPECT_NE(size.unavailable.find("refuses the QuantizationModifier at line 1"), std::string::npos)
      << size.unavailable;
  EXPECT_NE(size_line(size).find("not computed"), std::string::npos);
}

TEST(LlmcompressorSize, HoverOnTheModifierShowsTheCheckpointItWouldSave) {
  index::Index model = tiny_llama();
  // Staged, as llm-compressor reads it (a flat modifier's hover says it is never applied).
  std::string staged = "quant_stage:\n  quant_modifiers:\n";
  for (std::size_t start = 0, end; start < group32().size(); start = end + 1) {
    end = group32().find('\n', start);
    staged += "    " + group32().substr(start, end - start + 1);
  }
  std::vector<Modifier> modifiers = recipe(staged);
  ASSERT_EQ(modifiers.size(), 1u);
  ASSERT_TRUE(modifiers.front().applied);
  Resolution r = resolve(modifiers.front(), model);
  std::optional<Hover> h = hover(modifiers.front(), r, model, config::Position{2, 7});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->markdown, "**QuantizationModifier** quantizes 8 modules, 1 ignored; " +
                             size_line(project(modifiers, model)));
  EXPECT_NE(h->markdown.find("projected size: 32.00 -> "), std::string::npos) << h->markdown;
}

} // namespace
} // namespace opscope::dialects::llmcompressor
