import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandTarget, DocumentView, isCommandTarget } from '../src/commandTarget';

const doc = (uri: string, languageId: string, text: string, scheme = 'file'): DocumentView => ({
  uri,
  scheme,
  languageId,
  text: () => text,
});

const script = doc('file:///w/train.py', 'python', 'from coreai_opt.quantization.config import QuantizerConfig\n');
const model = doc('file:///w/model.py', 'python', 'import torch\nclass Net(torch.nn.Module):\n    pass\n');
const yamlConfig = doc('file:///w/quant.yaml', 'yaml', 'quantization_config:\n  module_name_configs: {}\n');

test('a training script with a coreai-opt config is a command target', () => {
  assert.equal(isCommandTarget(script), true);
  assert.equal(isCommandTarget(yamlConfig), true);
});

test('a Python file without a config, an unsaved buffer or no editor is not', () => {
  assert.equal(isCommandTarget(model), false);
  assert.equal(isCommandTarget(doc('untitled:Untitled-1', 'python', 'import coreai_opt\n', 'untitled')), false);
  assert.equal(isCommandTarget(doc('file:///w/notes.md', 'markdown', 'import coreai_opt\n')), false);
  assert.equal(isCommandTarget(undefined), false);
});

test('the summary from a training script is about that script, not the YAML config last active', () => {
  assert.equal(commandTarget(script, yamlConfig.uri, [model, yamlConfig, script]), script.uri);
});

test("the model's own source in front: the config last active is the target", () => {
  assert.equal(commandTarget(model, script.uri, [model, script]), script.uri);
});

test('no config ever active: an open training script is found, never a Python file without a config', () => {
  // model.py sorts first; the server, given it, finds no model ("not a coreai-opt config").
  assert.equal(commandTarget(model, undefined, [model, script]), script.uri);
  assert.equal(commandTarget(undefined, undefined, [model]), undefined);
});
