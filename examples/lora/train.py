# A LoRA fine-tuning script on a Llama-3.2-1B-shaped model (its config.json only, in
# base_model/): opscope reads the LoraConfig below, builds the architecture without weights, and
# says which modules each target wraps; `v_projj` matches nothing.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("./base_model")
config = LoraConfig(
    r=16,
    lora_alpha=32,
    target_modules=["q_proj", "k_proj", "v_projj", "o_proj"],
    layers_to_transform=[0, 1, 2, 3],
    layers_pattern="layers",
)
model = get_peft_model(model, config)
model.print_trainable_parameters()
