from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")
config = LoraConfig(
    r=16,
    lora_alpha=32.0,
    target_modules=["q_proj", r"v_proj", 'o_proj'],
    exclude_modules=".*\\.mlp\\..*",
    layers_to_transform=[0, 1, -2],
    layers_pattern="layers",
    rank_pattern={"q_proj": 8, 0x10: 4},
    alpha_pattern={**other},
    modules_to_save=("lm_head",),
    task_type=None,
    use_dora=True,
    **kwargs,
)
model = get_peft_model(model, peft.LoraConfig(target_modules="all-linear", r=[*x]))
