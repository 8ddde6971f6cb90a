import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findServerBinary } from '../src/serverPath';

const fsWith = (...files: string[]) => ({ isExecutable: (f: string) => files.includes(f) });

test('the opscope.path setting wins when it is executable', () => {
  const r = findServerBinary('/opt/o/opscope', '/usr/bin', '/ext', fsWith('/opt/o/opscope', '/usr/bin/opscope'), 'linux');
  assert.equal(r.command, '/opt/o/opscope');
});

test('a bad opscope.path is reported, not silently replaced by another binary', () => {
  const r = findServerBinary('/nope/opscope', '/usr/bin', '/ext', fsWith('/usr/bin/opscope'), 'linux');
  assert.equal(r.command, undefined);
  assert.match(r.explanation, /opscope\.path.*\/nope\/opscope/);
});

test('without the setting, the first opscope on PATH is used', () => {
  const r = findServerBinary('', '/a:/b:/c', '/ext', fsWith('/b/opscope', '/c/opscope', '/ext/bin/opscope'), 'linux');
  assert.equal(r.command, '/b/opscope');
});

test('the bundled binary is the last resort', () => {
  const r = findServerBinary('', '/a:/b', '/ext', fsWith('/ext/bin/opscope'), 'linux');
  assert.equal(r.command, '/ext/bin/opscope');
});

test('no binary anywhere gives a message saying what to do', () => {
  const r = findServerBinary('', '', '/ext', fsWith(), 'linux');
  assert.equal(r.command, undefined);
  assert.match(r.explanation, /set opscope\.path/);
});
