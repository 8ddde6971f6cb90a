// PEFT's matching on a hand-built two-layer Llama (tiny_llama.h). The judge on real
// architectures is tests/dialects/test_peft_judge.py; these pin each rule where it is easy to see.
#include "opscope/dialects/peft/resolve.h"
#include "tiny_llama.h"

#include <gtest/gtest.h>

namespace opscope::dialects::peft {
namespace {

using testing::tiny_llama;

PeftConfig lora(std::vector<std::string> targets) {
  PeftConfig c;
  c.target_modules_set = true;
  for (std::string& t : targets)
    c.target_names.push_back({std::move(t), {}});
  return c;
}

std::vector<std::string> wrapped(const Resolution& r, const index::Index& model) {
  std::vector<std::string> out;
  for (const Wrapped& w : r.wrapped)
    out.push_back(model.named_modules()[static_cast<std::size_t>(w.module)].name);
  return out;
}

TEST(PeftResolve, AListEntryMatchesExactlyOrAfterADot) {
  index::Index model = tiny_llama();
  Resolution r = resolve(lora({"q_proj", "layers.1.mlp.down_proj", "proj"}), model);
  EXPECT_FALSE(r.error);
  EXPECT_EQ(wrapped(r, model), (std::vector<std::string>{"model.layers.0.self_attn.q_proj",
                                                         "model.layers.1.self_attn.q_proj",
                                                         "model.layers.1.mlp.down_proj"}));
  EXPECT_EQ(r.target_matches[0].size(), 2u);
  EXPECT_TRUE(r.target_matches[2].empty()); // `proj` is no dot-suffix of `q_proj`
  // LoRA on Linear(32 -> 32) at r=8: 8 * (32 + 32); down_proj (64 -> 32): 8 * 96.
  EXPECT_EQ(r.trainable_parameters, 2 * 512 + 768);
  EXPECT_EQ(r.all_parameters, 17504 + r.trainable_parameters);
  EXPECT_TRUE(r.counted);
}

TEST(PeftResolve, AStringIsAFullMatchOfTheWholeName) {
  index::Index model = tiny_llama();
  PeftConfig c;
  c.target_modules_set = true;
  c.target_regex = Written{R"(.*\.(q|v)_proj)", {}};
  EXPECT_EQ(resolve(c, model).wrapped.size(), 4u);
  c.target_regex = Written{"q_proj", {}}; // fullmatch: no module is named just `q_proj`
  Resolution none = resolve(c, model);
  ASSERT_TRUE(none.error);
  EXPECT_EQ(none.error_code, "no-match");
  EXPECT_NE(none.error->find("not found in the base model"), std::string::npos);
}

TEST(PeftResolve, AllLinearTakesEveryLinearByItsBasesButTheOutputLayer) {
  index::Index model = tiny_llama();
  PeftConfig c;
  c.target_modules_set = true;
  c.all_linear = Written{"all-linear", {}};
  Resolution r = resolve(c, model);
  std::vector<std::string> names = wrapped(r, model);
  EXPECT_EQ(names.size(), 8u); // q, v, out_proj (NonDynamicallyQuantizableLinear), down x 2
  EXPECT_NE(std::find(names.begin(), names.end(), "model.layers.0.self_attn.out_proj"),
            names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "lm_head"), names.end());
  EXPECT_EQ(r.all_linear_set.size(), 8u);
}

TEST(PeftResolve, UnsetTargetsAreTheArchitecturesDefault) {
  index::Index model = tiny_llama();
  Resolution r = resolve(PeftConfig{}, model);
  EXPECT_EQ(r.default_targets, (std::vector<std::string>{"q_proj", "v_proj"}));
  EXPECT_EQ(r.wrapped.size(), 4u);
  model.module_objects.front().model_type = "not-a-known-type";
  model.rebuild_lookups();
  Resolution unknown = resolve(PeftConfig{}, model);
  ASSERT_TRUE(unknown.error);
  EXPECT_EQ(unknown.error_code, "no-target");
}

TEST(PeftResolve, LayersToTransformFilterSuffixMatchesButNotExactNames) {
  index::Index model = tiny_llama();
  PeftConfig c = lora({"q_proj", "model.layers.0.mlp.down_proj"});
  c.layers_to_transform = {{1, {}}};
  std::vector<std::string> names = wrapped(resolve(c, model), model);
  EXPECT_EQ(names, (std::vector<std::string>{"model.layers.0.mlp.down_proj",
                                             "model.layers.1.self_attn.q_proj"}));
  c.layers_pattern = {{"blocks", {}}}; // no `blocks.N.` in any name: nothing by suffix
  EXPECT_EQ(wrapped(resolve(c, model), model),
            std::vector<std::string>{"model.layers.0.mlp.down_proj"});
}

TEST(PeftResolve, RankAndAlphaPatternsTakeTheFirstKeyThatMatches) {
  index::Index model = tiny_llama();
  PeftConfig c = lora({"q_proj", "down_proj"});
  c.rank_pattern = {{{"layers.1.self_attn.q_proj", {}}, 4}, {{".*proj", {}}, 2}};
  c.alpha_pattern = {{{"nothing", {}}, 64.0}};
  Resolution r = resolve(c, model);
  ASSERT_EQ(r.wrapped.size(), 4u);
  EXPECT_EQ(r.wrapped[0].rank, 2); // layers.0 q_proj: the regex key
  EXPECT_EQ(r.wrapped[2].rank, 4); // layers.1 q_proj: the first key
  EXPECT_EQ(r.wrapped[2].rank_key, 0);
  EXPECT_EQ(r.wrapped[2].alpha, 8);
  EXPECT_TRUE(r.alpha_matches[0].empty());
  EXPECT_EQ(r.rank_matches[1].size(), 4u); // every wrapped module the key matches
}

TEST(PeftResolve, AModuleTypeLoraCannotWrapRaises) {
  index::Index model = tiny_llama();
  Resolution r = resolve(lora({"mlp"}), model);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_code, "unsupported-module");
  EXPECT_NE(r.error->find("model.layers.0.mlp"), std::string::npos);
  PeftConfig ia3 = lora({"mlp"});
  ia3.class_name = "IA3Config"; // LoRA's list of layers is LoRA's only
  EXPECT_FALSE(resolve(ia3, model).error);
}

TEST(PeftResolve, ExclusionsAndModulesToSave) {
  index::Index model = tiny_llama();
  PeftConfig c = lora({"q_proj"});
  c.exclude_names = {{"q_proj", {}}};
  Resolution excluded = resolve(c, model);
  ASSERT_TRUE(excluded.error); // what matched is excluded, the rest never matched
  EXPECT_EQ(excluded.error_code, "targets-excluded");
  PeftConfig everything;
  everything.target_modules_set = true;
  everything.target_regex = Written{".*", {}};
  everything.exclude_regex = Written{".*", {}};
  EXPECT_EQ(resolve(everything, model).error_code, "all-excluded");

  // modules_to_save: a plain suffix. `norm` also saves both input_layernorms; each copy trains.
  PeftConfig s = lora({"q_proj"});
  s.modules_to_save = {{"norm", {}}};
  Resolution saved = resolve(s, model);
  EXPECT_EQ(saved.saved.size(), 3u);
  EXPECT_EQ(saved.trainable_parameters, 2 * 512 + 3 * 32);
  EXPECT_EQ(saved.all_parameters, 17504 + 2 * 512 + 3 * 32);
}

TEST(PeftResolve, LayerSelectionWithARegexIsRefusedByLoraConfig) {
  index::Index model = tiny_llama();
  PeftConfig c;
  c.target_modules_set = true;
  c.target_regex = Written{".*q_proj", {}};
  c.layers_to_transform = {{0, {}}};
  Resolution r = resolve(c, model);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_code, "layers-with-regex");
}

} // namespace
} // namespace opscope::dialects::peft
