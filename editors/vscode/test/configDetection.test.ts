import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConfigFileName, looksLikeCompressionConfig } from '../src/configDetection';

test('a YAML quantization config is recognised by its root key', () => {
  const text = 'quantization_config:\n  module_name_configs:\n    layer1\\..*: null\n';
  assert.equal(looksLikeCompressionConfig('yaml', text), true);
});

test('palettization and pruning roots are recognised, quoted or not', () => {
  assert.equal(looksLikeCompressionConfig('yaml', '"kmeans_palettization_config":\n  global_config: {}\n'), true);
  assert.equal(looksLikeCompressionConfig('yaml', "# pruning\nmagnitude_pruning_config :\n"), true);
});

test('a nested key of the same name does not make a YAML file a config', () => {
  assert.equal(looksLikeCompressionConfig('yaml', 'jobs:\n  quantization_config:\n    x: 1\n'), false);
});

test('an ordinary YAML file (CI workflow) is left alone', () => {
  assert.equal(looksLikeCompressionConfig('yaml', 'on: push\njobs:\n  build:\n    runs-on: ubuntu\n'), false);
});

test('a JSON config is recognised, an ordinary package.json is not', () => {
  assert.equal(looksLikeCompressionConfig('json', '{\n  "quantization_config": {"global_config": {}}\n}'), true);
  assert.equal(looksLikeCompressionConfig('jsonc', '// c\n{ "magnitude_pruning_config": {} }'), true);
  assert.equal(looksLikeCompressionConfig('json', '{ "name": "x", "quantization": 1 }'), false);
});

test('other languages are never configs, whatever they contain', () => {
  assert.equal(looksLikeCompressionConfig('python', 'quantization_config: 1\n'), false);
  assert.equal(looksLikeCompressionConfig('plaintext', 'quantization_config:\n'), false);
  assert.equal(looksLikeCompressionConfig('plaintext', 'from coreai_opt.quantization import QuantizerConfig\n'), false);
});

test('a training script that imports coreai_opt or calls its config classes is served', () => {
  assert.equal(looksLikeCompressionConfig('python', 'import torch\nfrom coreai_opt.quantization.config import QuantizerConfig\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'import coreai_opt\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'from coreai_opt import pruning\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'cfg = QuantizerConfig.from_dict({"quantization_config": {}})\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'cfg = KMeansPalettizerConfig(module_name_configs={})\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'def f():\n    return MagnitudePrunerConfig ()\n'), true);
});

test('a Python file that only mentions coreai-opt in a comment or a name is left alone', () => {
  assert.equal(looksLikeCompressionConfig('python', "# Converted later with coreai_opt's QuantizerConfig; nothing here.\nnames = {'layer9': None}\n"), false);
  assert.equal(looksLikeCompressionConfig('python', 'x = 1  # QuantizerConfig(...) some day\n'), false);
  assert.equal(looksLikeCompressionConfig('python', 'import coreai_optimizer\nMyQuantizerConfigs = []\n'), false);
  assert.equal(looksLikeCompressionConfig('python', 'import torch\nmodel = torch.nn.Linear(2, 2)\n'), false);
});

test('a half-typed config (no colon yet) is not recognised until the key is complete', () => {
  assert.equal(looksLikeCompressionConfig('yaml', 'quantization_conf'), false);
  assert.equal(looksLikeCompressionConfig('yaml', 'quantization_config:'), true);
});

test('the project file is recognised by its name on any platform', () => {
  assert.equal(isConfigFileName('/home/u/proj/opscope.yaml'), true);
  assert.equal(isConfigFileName('C:\\proj\\opscope.yaml'), true);
  assert.equal(isConfigFileName('/home/u/proj/not-opscope.yaml'), false);
});

test("PEFT's saved adapter_config.json is served by its name, whatever it holds", () => {
  assert.equal(isConfigFileName('/home/u/out/checkpoint-500/adapter_config.json'), true);
  assert.equal(isConfigFileName('C:\\out\\adapter_config.json'), true);
  assert.equal(isConfigFileName('/home/u/out/config.json'), false);
  assert.equal(isConfigFileName('/home/u/out/my_adapter_config.json'), false);
  // Its content alone does not make another JSON file a config.
  assert.equal(looksLikeCompressionConfig('json', '{ "peft_type": "LORA", "target_modules": ["q_proj"] }'), false);
});

test('a training script that imports peft or calls a PEFT tuner config is served', () => {
  assert.equal(looksLikeCompressionConfig('python', 'from peft import LoraConfig, get_peft_model\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'import peft\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'from peft.tuners.lora import LoraConfig\n'), true);
  for (const cls of ['LoraConfig', 'LoHaConfig', 'LoKrConfig', 'AdaLoraConfig', 'IA3Config', 'OFTConfig', 'BOFTConfig', 'VeraConfig']) {
    assert.equal(looksLikeCompressionConfig('python', `config = ${cls}(target_modules=["q_proj", "v_proj"])\n`), true, cls);
  }
  assert.equal(looksLikeCompressionConfig('python', 'cfg = peft.LoraConfig (r=8)\n'), true);
});

test('a Python file that only mentions PEFT in a comment or a longer name is left alone', () => {
  assert.equal(looksLikeCompressionConfig('python', '# We may add LoraConfig(...) later with peft.\nimport torch\n'), false);
  assert.equal(looksLikeCompressionConfig('python', 'import peft_helpers\nMyLoraConfig = dict\n'), false);
  assert.equal(looksLikeCompressionConfig('python', 'from peftlike import thing\n'), false);
});

test('axolotl and LLaMA-Factory YAML that fine-tune with LoRA are served', () => {
  // axolotl
  assert.equal(looksLikeCompressionConfig('yaml', 'base_model: org/llama\nlora_target_modules:\n  - q_proj\n'), true);
  assert.equal(looksLikeCompressionConfig('yaml', 'base_model: org/llama\nlora_target_linear: true\n'), true);
  assert.equal(looksLikeCompressionConfig('yaml', 'base_model: org/llama\nadapter: qlora\nlora_r: 8\n'), true);
  assert.equal(looksLikeCompressionConfig('yaml', 'adapter: "lora"  # LoRA\n'), true);
  // LLaMA-Factory
  assert.equal(looksLikeCompressionConfig('yaml', 'model_name_or_path: org/llama\nlora_target: q_proj,v_proj\n'), true);
  assert.equal(looksLikeCompressionConfig('yaml', 'stage: sft\nfinetuning_type: lora\n'), true);
});

test('YAML that is not a LoRA fine-tuning config is left alone', () => {
  // A full fine-tune, another adapter, nested keys, a key that only starts alike.
  assert.equal(looksLikeCompressionConfig('yaml', 'finetuning_type: full\n'), false);
  assert.equal(looksLikeCompressionConfig('yaml', 'adapter: loraxyz\n'), false);
  assert.equal(looksLikeCompressionConfig('yaml', 'network:\n  adapter: lora\n  lora_target: x\n'), false);
  assert.equal(looksLikeCompressionConfig('yaml', 'lora_targets_note: x\n'), false);
  assert.equal(looksLikeCompressionConfig('json', '{ "lora_target_modules": ["q_proj"] }'), false);
});

test('llm-compressor recipes are served: staged or flat, by a modifier key at any level', () => {
  const staged = 'quant_stage:\n  quant_modifiers:\n    GPTQModifier:\n      scheme: W4A16\n      ignore: [lm_head]\n';
  assert.equal(looksLikeCompressionConfig('yaml', staged), true);
  assert.equal(looksLikeCompressionConfig('yaml', '"SmoothQuantModifier":\n  smoothing_strength: 0.8\n'), true);
  // A stage without a modifier yet, or a modifier named in a comment or a value: not a recipe.
  assert.equal(looksLikeCompressionConfig('yaml', 'quant_stage:\n  quant_modifiers: {}\n'), false);
  assert.equal(looksLikeCompressionConfig('yaml', '# run GPTQModifier: later\nname: GPTQModifier\n'), false);
});

test('oneshot scripts are served: an llmcompressor import or a modifier called', () => {
  assert.equal(looksLikeCompressionConfig('python', 'from llmcompressor import oneshot\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'from llmcompressor.modifiers.quantization import GPTQModifier\n'), true);
  assert.equal(looksLikeCompressionConfig('python', 'recipe = QuantizationModifier(scheme="W4A16")\n'), true);
  assert.equal(looksLikeCompressionConfig('python', '# try AWQModifier( later\nimport llmcompressor_utils\n'), false);
});

test("a compressed-tensors checkpoint's config.json is served by its quantization_config", () => {
  const checkpoint = '{\n  "model_type": "gemma3",\n  "quantization_config": {\n    "config_groups": {},\n    "ignore": ["lm_head"]\n  }\n}\n';
  assert.equal(looksLikeCompressionConfig('json', checkpoint), true);
  assert.equal(looksLikeCompressionConfig('json', '{ "model_type": "gemma3", "hidden_size": 64 }'), false);
});
