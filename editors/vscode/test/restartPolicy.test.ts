import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepConnection, RestartPolicy } from '../src/restartPolicy';

test('crashes are restarted up to the bound, then the server stays down', () => {
  let t = 0;
  const policy = new RestartPolicy(3, 60_000, () => t);
  for (let i = 1; i <= 3; i++) {
    t += 1000;
    const d = policy.onCrash();
    assert.equal(d.restart, true);
    assert.match(d.message, new RegExp(`${i} of 3`));
  }
  t += 1000;
  const last = policy.onCrash();
  assert.equal(last.restart, false);
  assert.match(last.message, /Restart Server/);
});

test('old crashes fall out of the window', () => {
  let t = 0;
  const policy = new RestartPolicy(2, 60_000, () => t);
  policy.onCrash();
  policy.onCrash();
  t = 120_000;
  assert.equal(policy.onCrash().restart, true);
});

test('a manual restart resets the count', () => {
  const policy = new RestartPolicy(1, 60_000, () => 0);
  policy.onCrash();
  assert.equal(policy.onCrash().restart, false);
  policy.reset();
  assert.equal(policy.onCrash().restart, true);
});

test('a write to a server that just died (EPIPE, no message count) keeps the client for the restart', () => {
  assert.equal(keepConnection(undefined), true);
  assert.equal(keepConnection(1), true);
  assert.equal(keepConnection(3), true);
  assert.equal(keepConnection(4), false, 'repeated failures to write messages give up');
});
