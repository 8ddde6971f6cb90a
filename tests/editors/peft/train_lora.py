# A LoRA fine-tuning script as users write it (issue 26). Its base model is a Hugging Face id the
# editor tests put in a private hub cache (peft_workspace.py); no opscope.yaml names a model.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("opscope-test/tiny-llama")
config = LoraConfig(
    r=8,
    lora_alpha=16,
    target_modules=["q_proj", "v_projj"],
)
model = get_peft_model(model, config)
