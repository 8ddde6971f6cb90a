import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findServer, findServerBinary } from '../src/serverPath';

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

const search = (over: Partial<Parameters<typeof findServer>[0]>) =>
  findServer({ setting: '', envPath: '/usr/bin', extensionDir: '/ext', fs: fsWith(), platform: 'linux', ...over });

test('the selected interpreter\'s opscope comes before PATH', () => {
  const r = search({ interpreter: '/proj/.venv/bin/python', fs: fsWith('/proj/.venv/bin/opscope', '/usr/bin/opscope') });
  assert.equal(r.command, '/proj/.venv/bin/opscope');
  assert.match(r.explanation, /selected Python interpreter \(\/proj\/\.venv\/bin\/python\)/);
});

test('opscope.path still comes before the interpreter', () => {
  const r = search({ setting: '/opt/opscope', interpreter: '/proj/.venv/bin/python', fs: fsWith('/opt/opscope', '/proj/.venv/bin/opscope') });
  assert.equal(r.command, '/opt/opscope');
});

test('an interpreter without opscope falls back to PATH', () => {
  const r = search({ interpreter: '/proj/.venv/bin/python', fs: fsWith('/usr/bin/opscope') });
  assert.equal(r.command, '/usr/bin/opscope');
});

test('a Windows venv interpreter finds opscope.exe beside it in Scripts', () => {
  const r = search({ interpreter: 'C:\\p\\.venv\\Scripts\\python.exe', envPath: '', platform: 'win32', fs: fsWith('C:\\p\\.venv\\Scripts\\opscope.exe') });
  assert.equal(r.command, 'C:\\p\\.venv\\Scripts\\opscope.exe');
});

test('nothing found with an interpreter selected offers pip install opscope in it', () => {
  const r = search({ interpreter: '/proj/.venv/bin/python' });
  assert.equal(r.command, undefined);
  assert.deepEqual(r.installCommand, ['/proj/.venv/bin/python', '-m', 'pip', 'install', 'opscope']);
  assert.match(r.explanation, /\/proj\/\.venv\/bin\/python -m pip install opscope/);
});

test('nothing found and no interpreter: the message still says pip install opscope', () => {
  const r = search({});
  assert.equal(r.installCommand, undefined);
  assert.match(r.explanation, /pip install opscope/);
});
