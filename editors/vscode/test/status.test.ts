import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelDisplayName, statusView } from '../src/status';

test('ready shows the model name and op count', () => {
  const v = statusView({ state: 'ready', model: '/ws/models/resnet18.pt2', ops: 71 });
  assert.equal(v.text, '$(check) resnet18.pt2 · 71 ops');
  assert.equal(v.isError, false);
});

test('loading spins', () => {
  assert.match(statusView({ state: 'loading', model: 'net.py:build' }).text, /^\$\(sync~spin\) opscope: net\.py:build$/);
});

test('failed is an error carrying the reason in the tooltip', () => {
  const v = statusView({ state: 'failed', model: 'm.pt2', message: 'm.pt2: not a torch.export archive' });
  assert.equal(v.isError, true);
  assert.match(v.tooltip, /not a torch\.export archive/);
});

test('display names', () => {
  assert.equal(modelDisplayName(undefined), 'model');
  assert.equal(modelDisplayName('C:\\m\\x.pt2'), 'x.pt2');
  assert.equal(modelDisplayName('pkg.mod:factory'), 'pkg.mod:factory');
});
