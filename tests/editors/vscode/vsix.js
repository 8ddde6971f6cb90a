// Packages the VS Code extension of this checkout (editors/vscode) into a .vsix, as CI ships it.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..', '..');

/** Builds the extension and packages it as `work`/opscope.vsix; returns that path. */
function buildVsix(work) {
  const ext = path.join(repo, 'editors', 'vscode');
  const out = path.join(work, 'opscope.vsix');
  fs.mkdirSync(work, { recursive: true });
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ext, stdio: 'inherit' });
  execFileSync(
    path.join(ext, 'node_modules', '.bin', 'vsce'),
    ['package', '--allow-missing-repository', '--no-dependencies', '-o', out],
    { cwd: ext, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return out;
}

module.exports = { buildVsix };
