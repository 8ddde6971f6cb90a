import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProjectFile, looksLikeCompressionConfig } from '../src/configDetection';

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
  assert.equal(isProjectFile('/home/u/proj/opscope.yaml'), true);
  assert.equal(isProjectFile('C:\\proj\\opscope.yaml'), true);
  assert.equal(isProjectFile('/home/u/proj/not-opscope.yaml'), false);
});
