// PEFT's default LoRA targets per Hugging Face model_type, used when target_modules is unset
// (peft 0.21.2 utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING, copied
// as data; tests/dialects/test_peft_judge.py compares it with the installed PEFT's).
#pragma once

#include <string_view>

namespace opscope::dialects::peft::detail {

struct DefaultTargets {
  std::string_view model_type;
  std::string_view names; // comma-separated names, or
  std::string_view regex; // a regex (names empty)
};

inline constexpr DefaultTargets kLoraDefaultTargets[] = {
    {"t5", "q,v", {}},
    {"mt5", "q,v", {}},
    {"bart", "q_proj,v_proj", {}},
    {"gpt2", "c_attn", {}},
    {"bloom", "query_key_value", {}},
    {"blip-2", "q,v,q_proj,v_proj", {}},
    {"opt", "q_proj,v_proj", {}},
    {"gptj", "q_proj,v_proj", {}},
    {"gpt_neox", "query_key_value", {}},
    {"gpt_neo", "q_proj,v_proj", {}},
    {"bert", "query,value", {}},
    {"roberta", "query,value", {}},
    {"xlm-roberta", "query,value", {}},
    {"electra", "query,value", {}},
    {"deberta-v2", "query_proj,value_proj", {}},
    {"deberta", "in_proj", {}},
    {"layoutlm", "query,value", {}},
    {"llama", "q_proj,v_proj", {}},
    {"llama4", "q_proj,v_proj", {}},
    {"chatglm", "query_key_value", {}},
    {"gpt_bigcode", "c_attn", {}},
    {"mpt", "Wqkv", {}},
    {"RefinedWebModel", "query_key_value", {}},
    {"RefinedWeb", "query_key_value", {}},
    {"falcon", "query_key_value", {}},
    {"btlm", "c_proj,c_attn", {}},
    {"codegen", "qkv_proj", {}},
    {"mistral", "q_proj,v_proj", {}},
    {"mixtral", "q_proj,v_proj", {}},
    {"stablelm", "q_proj,v_proj", {}},
    {"phi", "q_proj,v_proj,fc1,fc2", {}},
    {"gemma", "q_proj,v_proj", {}},
    {"gemma2", "q_proj,v_proj", {}},
    {"gemma3_text", "q_proj,v_proj", {}},
    {"gemma4", "", R"re(.*language_model\..*\.(q_proj|v_proj))re"},
    {"qwen2", "q_proj,v_proj", {}},
    {"qwen3", "q_proj,v_proj", {}},
    {"nemotron_h", "q_proj,k_proj,v_proj,o_proj", {}},
    {"rwkv", "key,value,receptance,output", {}},
    {"rwkv7", "r_proj,k_proj,v_proj,o_proj,key,value", {}},
};

} // namespace opscope::dialects::peft::detail
