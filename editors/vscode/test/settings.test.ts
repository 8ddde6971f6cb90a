import assert from 'node:assert/strict';
import { test } from 'node:test';
import { needsRestart, readSettings, toServerOptions } from '../src/settings';

const from = (values: Record<string, unknown>) => readSettings((key) => values[key]);

test('default settings send nothing, so opscope.yaml decides', () => {
  assert.deepEqual(toServerOptions(from({}), '/ws'), {});
  assert.deepEqual(toServerOptions(from({ path: '', model: '', mode: '', compressor: '', inputs: [] }), '/ws'), {});
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
  );
  assert.deepEqual(payload, {
    model: '/abs/m.pt2',
    mode: 'eager',
    compressor: 'kmeans_palettizer',
    inputs: ['x:1,3,224,224'],
    python: '/venv/bin/python',
  });
});

test('a relative model path is resolved against the workspace folder', () => {
  assert.equal(toServerOptions(from({ model: 'models/m.pt2' }), '/ws').model, '/ws/models/m.pt2');
  assert.equal(toServerOptions(from({ model: './net.py:build' }), '/ws/').model, '/ws/net.py:build');
});

test('a Python import target is passed as it is', () => {
  assert.equal(toServerOptions(from({ model: 'mypkg.models:resnet18' }), '/ws').model, 'mypkg.models:resnet18');
});

test('unknown modes and compressors are dropped rather than sent', () => {
  assert.deepEqual(toServerOptions(from({ mode: 'trace', compressor: 'zip' }), '/ws'), {});
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
