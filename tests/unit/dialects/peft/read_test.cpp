// Reading PEFT configs where users write them: a training script's LoraConfig call,
// adapter_config.json, axolotl and LLaMA-Factory YAML; every name with where it is written.
#include "opscope/dialects/peft/config.h"

#include <gtest/gtest.h>

namespace opscope::dialects::peft {
namespace {

std::vector<std::string> texts(const std::vector<Written>& w) {
  std::vector<std::string> out;
  for (const Written& x : w)
    out.push_back(x.text);
  return out;
}

TEST(PeftRead, APythonScriptsLoraConfigWithItsModelFromFromPretrained) {
  const std::string script = R"(from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer

tok = AutoTokenizer.from_pretrained("some/tokenizer")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")
cfg = LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "v_projj"],
                 rank_pattern={"q_proj": 4}, layers_to_transform=[0, 1], layers_pattern="layers",
                 modules_to_save=["lm_head"], exclude_modules=r".*\.mlp\..*")
)";
  ASSERT_TRUE(looks_like_peft("train.py", script));
  std::vector<PeftConfig> read = read_peft_configs("train.py", script);
  ASSERT_EQ(read.size(), 1u);
  const PeftConfig& c = read.front();
  EXPECT_EQ(c.source, Source::PythonCall);
  EXPECT_EQ(c.class_name, "LoraConfig");
  EXPECT_EQ(c.r, 16);
  EXPECT_EQ(c.lora_alpha, 32);
  EXPECT_EQ(texts(c.target_names), (std::vector<std::string>{"q_proj", "v_projj"}));
  // "v_projj" on line 5, its quotes included: where the no-match squiggle goes.
  EXPECT_EQ(c.target_names[1].range.start.line, 5);
  EXPECT_EQ(c.target_names[1].range.end.byte_col - c.target_names[1].range.start.byte_col, 9);
  ASSERT_EQ(c.rank_pattern.size(), 1u);
  EXPECT_EQ(c.rank_pattern[0].first.text, "q_proj");
  EXPECT_EQ(c.rank_pattern[0].second, 4);
  EXPECT_EQ(c.layers_to_transform.size(), 2u);
  EXPECT_EQ(texts(c.layers_pattern), std::vector<std::string>{"layers"});
  EXPECT_EQ(texts(c.modules_to_save), std::vector<std::string>{"lm_head"});
  ASSERT_TRUE(c.exclude_regex);
  EXPECT_EQ(c.exclude_regex->text, R"(.*\.mlp\..*)");
  ASSERT_TRUE(c.base_model); // the model, not the tokenizer
  EXPECT_EQ(c.base_model->text, "meta-llama/Llama-3.1-8B");
  EXPECT_TRUE(c.unreadable.empty());
}

TEST(PeftRead, AVariableOrKwargsIsSaidNotGuessedAndAllLinearIsItsOwnCase) {
  const std::string script = "import peft\nnames = ['q_proj']\n"
                             "a = peft.LoraConfig(target_modules=names, **extra)\n"
                             "b = peft.IA3Config(target_modules='ALL-LINEAR')\n";
  std::vector<PeftConfig> read = read_peft_configs("t.py", script);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_TRUE(read[0].target_modules_set); // written: never the architecture's default
  EXPECT_TRUE(read[0].target_names.empty());
  EXPECT_EQ(read[0].unreadable.size(), 2u); // the variable and **extra
  EXPECT_EQ(read[1].class_name, "IA3Config");
  EXPECT_TRUE(read[1].all_linear);
  EXPECT_FALSE(looks_like_peft("other.py", "x = dict(target_modules=['a'])\n"));
}

TEST(PeftRead, AdapterConfigJsonNamesItsBaseModel) {
  const std::string json = R"({"peft_type": "LORA", "base_model_name_or_path": "Qwen/Qwen2-0.5B",
  "r": 8, "lora_alpha": 16, "target_modules": ["q_proj", "k_proj"], "modules_to_save": null,
  "rank_pattern": {}, "layers_to_transform": null})";
  std::vector<PeftConfig> read = read_peft_configs("out/adapter_config.json", json);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].source, Source::AdapterJson);
  EXPECT_EQ(texts(read[0].target_names), (std::vector<std::string>{"q_proj", "k_proj"}));
  ASSERT_TRUE(read[0].base_model);
  EXPECT_EQ(read[0].base_model->text, "Qwen/Qwen2-0.5B");
  EXPECT_TRUE(read[0].modules_to_save.empty());
}

TEST(PeftRead, AxolotlYamlMapsItsKeysOntoLoraConfig) {
  const std::string yaml = "base_model: NousResearch/Llama-2-7b-hf\nadapter: lora\nlora_r: 32\n"
                           "lora_alpha: 16\nlora_target_modules:\n  - q_proj\n  - v_proj\n"
                           "lora_modules_to_save: [embed_tokens]\npeft_layers_to_transform: [0]\n";
  ASSERT_TRUE(looks_like_peft("axolotl.yml", yaml));
  std::vector<PeftConfig> read = read_peft_configs("axolotl.yml", yaml);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].source, Source::Axolotl);
  EXPECT_EQ(read[0].r, 32);
  EXPECT_EQ(texts(read[0].target_names), (std::vector<std::string>{"q_proj", "v_proj"}));
  EXPECT_EQ(texts(read[0].modules_to_save), std::vector<std::string>{"embed_tokens"});
  EXPECT_EQ(read[0].layers_to_transform.size(), 1u);
  EXPECT_EQ(read[0].base_model->text, "NousResearch/Llama-2-7b-hf");

  std::vector<PeftConfig> linear =
      read_peft_configs("a.yaml", "adapter: qlora\nlora_target_linear: true\n");
  ASSERT_EQ(linear.size(), 1u);
  EXPECT_TRUE(linear[0].all_linear);
}

TEST(PeftRead, LlamaFactorysCommaListGivesEachNameItsOwnRange) {
  const std::string yaml =
      "model_name_or_path: meta-llama/Meta-Llama-3-8B\nfinetuning_type: lora\n"
      "lora_target: q_proj, v_projj\nlora_rank: 4\nadditional_target: lm_head\n";
  std::vector<PeftConfig> read = read_peft_configs("llama3_lora.yaml", yaml);
  ASSERT_EQ(read.size(), 1u);
  const PeftConfig& c = read[0];
  EXPECT_EQ(c.source, Source::LlamaFactory);
  EXPECT_EQ(texts(c.target_names), (std::vector<std::string>{"q_proj", "v_projj"}));
  EXPECT_EQ(c.target_names[1].range.start.line, 2);
  EXPECT_EQ(c.target_names[1].range.start.byte_col, 21); // "lora_target: q_proj, " is 21 bytes
  EXPECT_EQ(c.target_names[1].range.end.byte_col, 28);
  EXPECT_EQ(c.r, 4);
  EXPECT_EQ(c.lora_alpha, 8); // LLaMA-Factory: twice the rank unless written
  EXPECT_EQ(texts(c.modules_to_save), std::vector<std::string>{"lm_head"});

  std::vector<PeftConfig> all = read_peft_configs("x.yaml", "lora_target: all\n");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].all_linear);
}

TEST(PeftRead, OtherFilesAreNotPeftConfigs) {
  EXPECT_FALSE(looks_like_peft("config.yaml", "quantization_config:\n  global_config: {}\n"));
  EXPECT_TRUE(read_peft_configs("config.yaml", "a: [1, 2\n").empty());
  // A call being typed still gives what is written so far.
  std::vector<PeftConfig> typing = read_peft_configs(
      "t.py", "from peft import LoraConfig\nc = LoraConfig(r=4, target_modules=[\"q_pr");
  ASSERT_EQ(typing.size(), 1u);
  EXPECT_EQ(typing[0].r, 4);
  ASSERT_EQ(typing[0].target_names.size(), 1u);
  EXPECT_EQ(typing[0].target_names[0].text, "q_pr");
}

} // namespace
} // namespace opscope::dialects::peft
