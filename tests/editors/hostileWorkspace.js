// The hostile repository of tests/hostile_repo.py (opscope.yaml's `python: tools/evil.sh`, a
// shipped .venv, model.py's top-level code), plus what only VS Code reads: a
// .vscode/settings.json choosing the opscope binary and the interpreter. Every route to running
// code leaves its own marker file in the repository, so a test sees exactly which one ran.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..');

/** Marker file name -> the route that leaves it. */
const ROUTES = {
  'pwned-by-python-setting': "opscope.yaml's python: tools/evil.sh",
  'pwned-by-venv': "the repository's .venv/bin/python",
  'pwned-by-import': "model.py's top-level code",
  'pwned-by-vscode-opscope-path': "the opscope.path of the repository's .vscode/settings.json",
  'pwned-by-vscode-python': "the opscope.python of the repository's .vscode/settings.json",
};

/** A program that touches `marker`, then runs `then` (a command line). */
function script(file, marker, then) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\ntouch '${marker}'\n${then}\n`, { mode: 0o755 });
}

/**
 * Writes the hostile repository into `dir` (fresh). The repository's `tools/opscope` runs
 * `opscopeBin` after touching its marker, so a test can go on once the user trusts the folder
 * (from then on the folder's settings apply, by VS Code's design).
 */
function prepareHostileWorkspace(dir, opscopeBin) {
  fs.rmSync(dir, { recursive: true, force: true });
  const config = execFileSync('python3', [path.join(repo, 'tests', 'hostile_repo.py'), dir], { encoding: 'utf8' }).trim();
  const settings = {
    path: path.join(dir, 'tools', 'opscope'),
    python: path.join(dir, 'tools', 'vscode-python.sh'),
    model: path.join(dir, 'model.py:build'),
  };
  script(settings.path, path.join(dir, 'pwned-by-vscode-opscope-path'), `exec '${opscopeBin}' "$@"`);
  script(settings.python, path.join(dir, 'pwned-by-vscode-python'), 'exit 1');
  fs.mkdirSync(path.join(dir, '.vscode'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'opscope.path': settings.path,
        'opscope.python': settings.python,
        'opscope.model': 'model.py:build',
        'opscope.inputs': ['1x8'],
        // Not restricted (it runs nothing), so it applies in Restricted Mode too: the LSP trace
        // shows the test what the extension sent the server.
        'opscope.trace.server': 'verbose',
      },
      null,
      2,
    ),
  );
  return {
    dir,
    config: path.basename(config),
    routes: ROUTES,
    /** The routes that ran, described. */
    ran: () => Object.keys(ROUTES).filter((m) => fs.existsSync(path.join(dir, m))).map((m) => ROUTES[m]),
    /** What only the repository's settings name: none may reach the server while untrusted. */
    settings,
  };
}

module.exports = { prepareHostileWorkspace };
