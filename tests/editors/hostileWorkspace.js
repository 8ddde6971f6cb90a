// A cloned repository that tries to run its own code as soon as an editor opens one of its
// configs: through the editor's settings (.vscode/settings.json: the opscope binary and the
// interpreter), through opscope.yaml (`python: tools/evil.sh`), through a `.venv` shipped in the
// repository, and through the model's top-level code. Every way touches its own marker file in
// a folder outside the repository, so a test sees exactly which one ran.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** The marker each route to code execution touches, by route. */
const ROUTES = {
  settingsPath: 'the opscope.path of .vscode/settings.json',
  settingsPython: 'the opscope.python of .vscode/settings.json',
  projectPython: 'the python: of opscope.yaml',
  venvPython: 'the .venv/bin/python shipped in the repository',
  modelImport: 'the top-level code of model.py',
};

/** A program that touches `marker`, then runs `then` (a command line) or fails. */
function script(file, marker, then = 'exit 1') {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\ntouch '${marker}'\n${then}\n`, { mode: 0o755 });
}

/**
 * Writes the hostile repository into `dir` (fresh) and returns what a test needs: the config to
 * open, the marker files by route, and `ranRoutes()` listing the routes whose marker exists.
 * The repository's `tools/opscope` touches its marker and then runs `opscopeBin`, so a test can
 * go on once the user trusts the folder (from then on its settings apply, by design).
 */
function prepareHostileWorkspace(dir, markersDir, opscopeBin) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(markersDir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(markersDir, { recursive: true });
  const markers = Object.fromEntries(Object.keys(ROUTES).map((r) => [r, path.join(markersDir, r)]));

  script(path.join(dir, 'tools', 'opscope'), markers.settingsPath, `exec '${opscopeBin}' "$@"`);
  script(path.join(dir, 'tools', 'settings-python.sh'), markers.settingsPython);
  script(path.join(dir, 'tools', 'evil.sh'), markers.projectPython);
  script(path.join(dir, '.venv', 'bin', 'python'), markers.venvPython);
  fs.writeFileSync(
    path.join(dir, 'model.py'),
    [
      '"""Looks like a model; its import runs code."""',
      'import pathlib',
      `pathlib.Path(${JSON.stringify(markers.modelImport)}).touch()`,
      '',
      'import torch',
      '',
      '',
      'def build():',
      '    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3))',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'opscope.yaml'),
    '# The repository chooses the interpreter: it must not run before the user trusts this file.\n' +
      'model: model.py:build\npython: tools/evil.sh\ninputs: [1x3x8x8]\ncompressor: quantizer\n',
  );
  fs.writeFileSync(
    path.join(dir, 'quant.yaml'),
    'quantization_config:\n  global_config:\n    op_state_spec:\n      weight: { dtype: int8 }\n' +
      '  module_name_configs:\n    "0": null\n',
  );
  fs.mkdirSync(path.join(dir, '.vscode'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'opscope.path': path.join(dir, 'tools', 'opscope'),
        'opscope.python': path.join(dir, 'tools', 'settings-python.sh'),
        'opscope.model': 'model.py:build',
        'opscope.inputs': ['1x3x8x8'],
        // Not restricted (it runs nothing): the workspace may turn on the LSP trace, which shows
        // what the extension sent the server.
        'opscope.trace.server': 'verbose',
      },
      null,
      2,
    ),
  );
  const ranRoutes = () => Object.keys(markers).filter((r) => fs.existsSync(markers[r]));
  return {
    dir,
    config: 'quant.yaml',
    markers,
    routes: ROUTES,
    ranRoutes,
    /** What only the repository's settings name: none may reach the server while untrusted. */
    settings: {
      path: path.join(dir, 'tools', 'opscope'),
      python: path.join(dir, 'tools', 'settings-python.sh'),
      model: path.join(dir, 'model.py:build'),
    },
  };
}

module.exports = { prepareHostileWorkspace, HOSTILE_ROUTES: ROUTES };
