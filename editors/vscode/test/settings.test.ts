import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  needsRestart,
  readSettings,
  RESTRICTED_SETTINGS,
  SettingOrigins,
  toServerOptions,
  trustAwareGetter,
} from '../src/settings';

const from = (values: Record<string, unknown>) => readSettings((key) => values[key]);

test('default settings send only the trust state, so opscope.yaml decides the rest', () => {
  assert.deepEqual(toServerOptions(from({}), '/ws', true), { workspaceTrusted: true });
  assert.deepEqual(
    toServerOptions(from({ path: '', model: '', mode: '', compressor: '', inputs: [] }), '/ws', false),
    { workspaceTrusted: false },
  );
});

test('set settings become initializationOptions with the server names', () => {
  const payload = toServerOptions(
    from({
      model: '/abs/m.pt2',
      mode: 'eager',
      compressor: 'kmeans_palettizer',
      inputs: ['x:1,3,224,224'],
      python: '/venv/bin/python',
    }),
    '/ws',
    true,
  );
  assert.deepEqual(payload, {
    model: '/abs/m.pt2',
    mode: 'eager',
    compressor: 'kmeans_palettizer',
    inputs: ['x:1,3,224,224'],
    python: '/venv/bin/python',
    workspaceTrusted: true,
  });
});

test('opscope.weightless and opscope.hfClass reach the server under the names it reads', () => {
  const payload = toServerOptions(from({ weightless: true, hfClass: ' AutoModelForCausalLM ' }), '/ws', true);
  assert.equal(payload.weightless, true);
  assert.equal(payload.hfClass, 'AutoModelForCausalLM');
});

test('opscope.weights reaches the server as a path, relative ones against the workspace folder', () => {
  assert.equal(toServerOptions(from({ weights: 'ckpt/llama' }), '/ws', true).weights, '/ws/ckpt/llama');
  assert.equal(toServerOptions(from({ weights: '/data/model.safetensors' }), '/ws', true).weights, '/data/model.safetensors');
  assert.equal(toServerOptions(from({ weights: '' }), '/ws', true).weights, undefined);
});

test('an unticked or mistyped opscope.weightless is not sent, so opscope.yaml decides', () => {
  for (const weightless of [false, 'true', 1, undefined]) {
    assert.deepEqual(toServerOptions(from({ weightless }), '/ws', true), { workspaceTrusted: true }, String(weightless));
  }
});

test('every setting the extension reads is declared in package.json, with a description', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const declared = manifest.contributes.configuration.properties;
  for (const key of Object.keys(readSettings(() => undefined))) {
    const setting = declared[`opscope.${key}`];
    assert.ok(setting, `opscope.${key} is declared`);
    assert.ok((setting.markdownDescription ?? setting.description ?? '').length > 20, `opscope.${key} is described`);
  }
  assert.equal(declared['opscope.weightless'].type, 'boolean');
  assert.equal(declared['opscope.hfClass'].type, 'string');
});

test('a relative model path is resolved against the workspace folder', () => {
  assert.equal(toServerOptions(from({ model: 'models/m.pt2' }), '/ws', true).model, '/ws/models/m.pt2');
  assert.equal(toServerOptions(from({ model: './net.py:build' }), '/ws/', true).model, '/ws/net.py:build');
});

test('a Python import target is passed as it is', () => {
  assert.equal(toServerOptions(from({ model: 'mypkg.models:resnet18' }), '/ws', true).model, 'mypkg.models:resnet18');
});

test('unknown modes and compressors are dropped rather than sent', () => {
  assert.deepEqual(toServerOptions(from({ mode: 'trace', compressor: 'zip' }), '/ws', true), { workspaceTrusted: true });
});

test('wrongly typed settings (hand-edited settings.json) are ignored', () => {
  const s = from({ model: 42, inputs: ['a', 7, '  ', ' b '] });
  assert.equal(s.model, '');
  assert.deepEqual(s.inputs, ['a', 'b']);
});

test('only a change of opscope.path restarts the server', () => {
  assert.equal(needsRestart((s) => s === 'opscope.path'), true);
  assert.equal(needsRestart((s) => s === 'opscope.model'), false);
});

// A hostile repository's .vscode/settings.json, with the user's own interpreter in user settings.
const origins: Record<string, SettingOrigins> = {
  path: { defaultValue: '', workspaceValue: './tools/opscope' },
  python: { defaultValue: '', globalValue: '/home/me/venv/bin/python', workspaceFolderValue: 'tools/evil.sh' },
  model: { defaultValue: '', workspaceValue: 'model.py:build' },
  inputs: { defaultValue: [], workspaceValue: ['x:1,3'] },
  mode: { defaultValue: '', workspaceValue: 'eager' },
};
/** What `get` returns: the workspace value wins, as in VS Code without Restricted Mode. */
const merged = (key: string) => {
  const o = origins[key];
  return o?.workspaceFolderValue ?? o?.workspaceValue ?? o?.globalValue ?? o?.defaultValue;
};

test('in an untrusted workspace the workspace values of the restricted settings are ignored', () => {
  const s = readSettings(trustAwareGetter(merged, (key) => origins[key], false));
  assert.equal(s.path, '');
  assert.equal(s.python, '/home/me/venv/bin/python', "the user's own interpreter is kept");
  assert.equal(s.model, '');
  assert.deepEqual(s.inputs, []);
  assert.equal(s.mode, 'eager', 'opscope.mode runs nothing: the workspace may set it');
  assert.deepEqual(toServerOptions(s, '/ws', false), {
    python: '/home/me/venv/bin/python',
    mode: 'eager',
    workspaceTrusted: false,
  });
});

test('in a trusted workspace the workspace settings apply', () => {
  const s = readSettings(trustAwareGetter(merged, (key) => origins[key], true));
  assert.equal(s.path, './tools/opscope');
  assert.equal(s.python, 'tools/evil.sh');
  assert.equal(s.model, 'model.py:build');
  assert.deepEqual(s.inputs, ['x:1,3']);
});

test('package.json restricts exactly the settings the extension treats as restricted', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, 'limited');
  assert.deepEqual(
    [...untrusted.restrictedConfigurations].sort(),
    RESTRICTED_SETTINGS.map((k) => `opscope.${k}`).sort(),
  );
  for (const key of untrusted.restrictedConfigurations) {
    assert.ok(manifest.contributes.configuration.properties[key], `${key} is a contributed setting`);
  }
});
