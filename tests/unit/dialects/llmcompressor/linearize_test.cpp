// The model as oneshot sees it: fused MoE experts split into per-expert Linear layers, as
// llm-compressor's linearize_moe splits them, on the hand-built two-layer Llama given a fused
// experts module per layer. tests/dialects/test_llmcompressor_moe.py compares the view with
// the model linearize_moe itself makes for real transformers MoE families.
#include "../explain_on.h"
#include "opscope/dialects/llmcompressor/dialect.h"
#include "opscope/dialects/llmcompressor/llmcompressor.h"
#include "tiny_gemma3.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <utility>

namespace opscope::dialects::llmcompressor {
namespace {

using testing::tiny_llama;
using Shape = std::vector<std::int64_t>;

// tiny_llama (hidden 32) with a fused experts module of `cls` in each layer's MLP, holding 4
// experts and the parameters given; `decorated`: the export recorded the class's
// @use_experts_implementation arguments (defaults: not transposed, gated).
index::Index with_experts(const std::string& cls,
                          const std::vector<std::pair<std::string, Shape>>& parameters,
                          bool decorated = true) {
  index::Index model = tiny_llama();
  model.module_objects = model.named_modules(); // recorded, as an export records them
  for (std::string layer : {"0", "1"}) {
    index::ModuleObject experts;
    experts.name = "model.layers." + layer + ".mlp.experts";
    experts.type = cls;
    if (decorated)
      experts.experts_implementation = index::ModuleObject::ExpertsImplementation{};
    model.module_objects.push_back(experts);
    index::ModuleObject act;
    act.name = experts.name + ".act_fn";
    act.type = "transformers.activations.SiLUActivation";
    model.module_objects.back().children.push_back(static_cast<int>(model.module_objects.size()));
    model.module_objects.push_back(act);
    for (const auto& [leaf, shape] : parameters) {
      index::Parameter p;
      p.name = experts.name + "." + leaf;
      p.shape = shape;
      p.dtype = "bfloat16";
      model.parameters.push_back(p);
    }
  }
  model.rebuild_lookups();
  return model;
}

index::Index qwen3_moe_like() {
  return with_experts("transformers.models.qwen3_moe.modeling_qwen3_moe.Qwen3MoeExperts",
                      {{"gate_up_proj", {4, 128, 32}}, {"down_proj", {4, 32, 64}}});
}

std::int64_t all_bytes(const index::Index& model) {
  std::int64_t total = 0;
  for (const index::Parameter& p : model.parameters)
    total += p.numel() * p.element_bits() / 8;
  return total;
}

const index::ModuleObject* module(const index::Index& model, const std::string& name) {
  int at = model.find_module_object(name);
  return at < 0 ? nullptr : &model.named_modules()[static_cast<std::size_t>(at)];
}

TEST(LlmcompressorLinearize, FusedExpertsBecomeTheLinearLayersOneshotQuantizes) {
  index::Index fused = qwen3_moe_like();
  index::Index seen = linearize_moe(fused);
  const std::string experts = "model.layers.1.mlp.experts";
  ASSERT_NE(module(seen, experts), nullptr);
  EXPECT_EQ(module(seen, experts)->type,
            "llmcompressor.modeling.moe.linear_experts.LinearExperts2D");
  EXPECT_EQ(module(seen, experts + ".3")->type,
            "llmcompressor.modeling.moe.linear_experts.ExpertMLPWithGate");
  EXPECT_EQ(module(seen, experts + ".4"), nullptr); // four experts
  for (const char* leaf : {"gate_proj", "up_proj", "down_proj"})
    EXPECT_EQ(module(seen, experts + ".3." + leaf)->type, "torch.nn.modules.linear.Linear");
  // gate_up_proj [E, 2I, H] halves into gate and up [I, H]; down_proj [E, H, I] is [H, I].
  EXPECT_EQ(seen.find_parameter(experts + ".3.gate_proj.weight")->shape, (Shape{64, 32}));
  EXPECT_EQ(seen.find_parameter(experts + ".3.down_proj.weight")->shape, (Shape{32, 64}));
  EXPECT_EQ(seen.find_parameter(experts + ".0.up_proj.weight")->dtype, "bfloat16");
  EXPECT_EQ(seen.find_parameter(experts + ".gate_up_proj"), nullptr);
  EXPECT_EQ(all_bytes(seen), all_bytes(fused)); // the same weights, split
  // named_children(): the experts, then LinearExperts2D's act_fn.
  const index::ModuleObject& list = *module(seen, experts);
  ASSERT_EQ(list.children.size(), 5u);
  EXPECT_EQ(seen.named_modules()[static_cast<std::size_t>(list.children.back())].name,
            experts + ".act_fn");
  EXPECT_TRUE(has_linearizable_experts(fused));
  EXPECT_FALSE(has_linearizable_experts(seen));
  EXPECT_FALSE(has_linearizable_experts(tiny_llama()));
}

TEST(LlmcompressorLinearize, GptOssSplitsTransposedWithBiasesIntoItsOwnClasses) {
  index::Index seen =
      linearize_moe(with_experts("transformers.models.gpt_oss.modeling_gpt_oss.GptOssExperts",
                                 {{"gate_up_proj", {4, 32, 128}},
                                  {"gate_up_proj_bias", {4, 128}},
                                  {"down_proj", {4, 64, 32}},
                                  {"down_proj_bias", {4, 32}}}));
  const std::string expert = "model.layers.0.mlp.experts.2";
  EXPECT_EQ(module(seen, "model.layers.0.mlp.experts")->type,
            "llmcompressor.modeling.moe.gpt_oss.GptOssLinearExperts");
  EXPECT_EQ(module(seen, expert)->type, "llmcompressor.modeling.moe.gpt_oss.GptOssExpertMLP");
  EXPECT_EQ(seen.find_parameter(expert + ".up_proj.weight")->shape, (Shape{64, 32}));
  EXPECT_EQ(seen.find_parameter(expert + ".up_proj.bias")->shape, (Shape{64}));
  EXPECT_EQ(seen.find_parameter(expert + ".down_proj.weight")->shape, (Shape{32, 64}));
  EXPECT_EQ(seen.find_parameter(expert + ".down_proj.bias")->shape, (Shape{32}));
}

TEST(LlmcompressorLinearize, AClassOpscopeNeverSawIsSplitAsItsRecordedDecoratorSays) {
  // A family a later transformers adds: its decorator's arguments come with the export, so
  // it splits (here transposed and ungated: up_proj [E, H, I], down_proj [E, I, H]).
  index::Index fused =
      with_experts("transformers.models.next_family.modeling_next_family.NextFamilyExperts",
                   {{"up_proj", {4, 32, 64}}, {"down_proj", {4, 64, 32}}});
  for (index::ModuleObject& m : fused.module_objects)
    if (m.experts_implementation)
      m.experts_implementation = index::ModuleObject::ExpertsImplementation{true, false};
  fused.rebuild_lookups();
  index::Index seen = linearize_moe(fused);
  const std::string expert = "model.layers.1.mlp.experts.3";
  EXPECT_EQ(module(seen, expert)->type,
            "llmcompressor.modeling.moe.linear_experts.ExpertMLPWithoutGate");
  EXPECT_EQ(seen.find_parameter(expert + ".up_proj.weight")->shape, (Shape{64, 32}));
  EXPECT_EQ(seen.find_parameter(expert + ".down_proj.weight")->shape, (Shape{32, 64}));
  EXPECT_EQ(seen.find_parameter(expert + ".gate_proj.weight"), nullptr);
  EXPECT_TRUE(fused_experts_left(seen).empty());
}

TEST(LlmcompressorLinearize, AFusedClassLinearizeMoeDoesNotSplitStaysAndIsSaid) {
  // Step3p7Experts has the protocol's parameters but no @use_experts_implementation.
  index::Index fused =
      with_experts("transformers.models.step3p7.modeling_step3p7.Step3p7Experts",
                   {{"gate_up_proj", {4, 128, 32}}, {"down_proj", {4, 32, 64}}}, false);
  EXPECT_FALSE(has_linearizable_experts(fused));
  index::Index seen = linearize_moe(fused);
  EXPECT_NE(seen.find_parameter("model.layers.0.mlp.experts.gate_up_proj"), nullptr);
  EXPECT_EQ(fused_experts_left(seen),
            (std::vector<std::string>{"model.layers.0.mlp.experts", "model.layers.1.mlp.experts"}));
  std::vector<Modifier> recipe =
      read_llmcompressor_configs("recipe.yaml", "QuantizationModifier:\n  targets: [Linear]\n"
                                                "  scheme: W4A16\n");
  Resolution r = resolve(recipe.front(), seen);
  ProjectedCheckpoint size = project_checkpoint(recipe, {r}, seen);
  EXPECT_NE(size.caveat.find("2 fused MoE experts modules (model.layers.0.mlp.experts, ...) kept "
                             "as 3-D parameters"),
            std::string::npos)
      << size.caveat;
  EXPECT_TRUE(fused_experts_left(linearize_moe(qwen3_moe_like())).empty());
}

TEST(LlmcompressorLinearize, ExpertsPastTheBoundOrOfOddShapesStayFusedAndAreSaid) {
  // 600,000 experts a layer would add 2.4 M modules: the view keeps them fused (an export on
  // fake tensors holds such a config without a byte of weights) and the size says so.
  const std::string cls = "transformers.models.qwen3_moe.modeling_qwen3_moe.Qwen3MoeExperts";
  index::Index huge =
      with_experts(cls, {{"gate_up_proj", {600'000, 128, 32}}, {"down_proj", {600'000, 32, 64}}});
  index::Index seen = linearize_moe(huge);
  EXPECT_EQ(seen.named_modules().size(), huge.named_modules().size());
  EXPECT_EQ(fused_experts_left(seen).size(), 2u);
  std::vector<Modifier> recipe =
      read_llmcompressor_configs("recipe.yaml", "QuantizationModifier:\n  targets: [Linear]\n"
                                                "  scheme: W4A16\n");
  ProjectedCheckpoint size = project_checkpoint(recipe, {resolve(recipe.front(), seen)}, seen);
  EXPECT_NE(size.caveat.find("counted unquantized"), std::string::npos) << size.caveat;

  // down_proj's shape does not fit gate_up_proj's (no model transformers builds): no split, no
  // crash, said the same way.
  index::Index odd =
      with_experts(cls, {{"gate_up_proj", {4, 128, 32}}, {"down_proj", {4, 32, 63}}});
  EXPECT_EQ(fused_experts_left(linearize_moe(odd)).size(), 2u);
}

TEST(LlmcompressorLinearize, TheDialectAnswersOnTheModelOneshotSees) {
  index::Index model = qwen3_moe_like();
  const std::string text = "quant_stage:\n  quant_modifiers:\n    QuantizationModifier:\n"
                           "      targets: [Linear]\n      scheme: W4A16\n"
                           "      ignore: [lm_head, model.layers.0.mlp.experts.1.down_proj]\n";
  auto doc = dialect().read("/w/recipe.yaml", text);
  // The per-expert name is a module: no "matches nothing".
  for (const Diagnostic& f : doc->diagnose(model))
    EXPECT_EQ(f.message.find("matches nothing"), std::string::npos) << f.message;
  // Completion offers the per-expert names.
  std::vector<CompletionItem> found = doc->complete(model, {5, 27}, 200);
  EXPECT_TRUE(std::any_of(found.begin(), found.end(), [](const CompletionItem& s) {
    return s.label == "model.layers.1.mlp.experts.3.gate_proj";
  }));
  // explain: every expert's Linear quantized but the one ignored, and no caveat.
  std::ostringstream out, err;
  ASSERT_EQ(test_hosts::explain_on(*doc, "/w/recipe.yaml", model, false, out, err), 0) << err.str();
  std::string text_out = out.str();
  auto line_of = [&](const std::string& name) {
    std::size_t at = text_out.find("  " + name + " ");
    return at == std::string::npos ? "" : text_out.substr(at, text_out.find('\n', at) - at);
  };
  EXPECT_NE(line_of("model.layers.1.mlp.experts.3.gate_proj").find("W4A16"), std::string::npos)
      << text_out;
  EXPECT_NE(line_of("model.layers.0.mlp.experts.1.down_proj").find("ignored"), std::string::npos)
      << text_out;
  EXPECT_EQ(out.str().find("fused MoE"), std::string::npos) << out.str();
}

} // namespace
} // namespace opscope::dialects::llmcompressor
