// The VS Code extension with opscope as a user installs it (issue 16): `pip install opscope`
// into the project's venv, that venv selected as the workspace's Python interpreter, and no
// opscope.path and no opscope on PATH. The extension must find the server through the
// interpreter, and that server must serve the example: the no-match warning and completion.
// Run by scripts/test_wheel.sh after it installed the wheel into a fresh venv.
//
// env: OPSCOPE_WHEEL_VENV (the venv holding the wheel, required), OPSCOPE_EDITOR_TOOLS
// (code-server and playwright-core), OPSCOPE_VSIX (optional: else built here),
// OPSCOPE_SCREENSHOTS, OPSCOPE_EDITOR_WORK.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { CodeServer } = require('./codeServer');
const { Workbench, eventually } = require('./workbench');
const { buildVsix } = require('./vsix');
const { example, prepareWorkspace } = require('../example');

const repo = path.resolve(__dirname, '..', '..', '..');
const env = (name, fallback) => process.env[name] || fallback;
const venv = env('OPSCOPE_WHEEL_VENV');
const tools = path.resolve(env('OPSCOPE_EDITOR_TOOLS', path.join(repo, 'build', 'editor-tools')));
const work = path.resolve(env('OPSCOPE_EDITOR_WORK', path.join(tools, 'work')));
const shots = path.resolve(env('OPSCOPE_SCREENSHOTS', path.join(work, 'screenshots')));
// The committed index of the example's ResNet-18: the venv's torch export is test_wheel.py's
// subject; here the point is which server VS Code starts, within the stage's time budget.
const index = path.join(repo, 'tests', 'lsp', 'transcripts', 'fixtures', 'resnet18.index.json');

test('VS Code finds the opscope pip installed in the selected interpreter', { timeout: 180_000 }, async (t) => {
  assert.ok(venv, 'OPSCOPE_WHEEL_VENV must name the venv holding the wheel');
  const interpreter = path.join(venv, 'bin', 'python');
  const installed = path.join(venv, 'bin', 'opscope');
  assert.ok(fs.existsSync(installed), `the wheel installed ${installed}`);
  const { chromium } = require(path.join(tools, 'node_modules', 'playwright-core'));
  fs.mkdirSync(work, { recursive: true });
  const root = fs.mkdtempSync(path.join(work, 'vscode-wheel-'));
  const ws = prepareWorkspace(path.join(root, 'ws'));
  fs.writeFileSync(path.join(ws, 'opscope.yaml'), `model: ${index}\ncompressor: quantizer\n`);
  const vsix = env('OPSCOPE_VSIX') || buildVsix(work);

  const server = new CodeServer({
    tools,
    root,
    vsix,
    // No opscope on PATH: only the interpreter's can be found.
    env: { PATH: '/usr/bin:/bin' },
    settings: {
      // What the Python extension records when the user selects the venv (no opscope.path).
      'python.defaultInterpreterPath': interpreter,
      'editor.quickSuggestions': { other: false, comments: false, strings: false },
      'editor.suggestOnTriggerCharacters': false,
    },
  });
  for (const dir of ['/usr/bin', '/bin']) assert.ok(!fs.existsSync(path.join(dir, 'opscope')), `no opscope in ${dir}`);
  server.installExtension();
  const url = await server.start(ws);
  const browser = await chromium.launchPersistentContext(path.join(root, 'chromium'), {
    executablePath: env('OPSCOPE_CHROMIUM', '/usr/bin/chromium'),
    headless: true,
    viewport: { width: 1400, height: 850 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  t.after(async () => {
    await browser.close().catch(() => {});
    await server.stop();
  });
  const page = browser.pages()[0] || (await browser.newPage());
  const wb = new Workbench(page, shots);
  const step = (name, shot, fn) =>
    t.test(name, async () => {
      try {
        await fn();
      } catch (e) {
        await wb.screenshot(`failed-${shot}`).catch(() => {});
        throw e;
      }
    });

  await wb.open(url);
  // The interpreter is asked only in a trusted workspace (its venv may be the repository's code).
  await wb.answerTrustPrompt(true);

  await step('the server started is the opscope of the selected interpreter', 'wheel-01-started', async () => {
    await wb.openFile(example.config.file);
    const status = await eventually(async () => {
      const s = await wb.statusBarText();
      return /\d+ ops/.test(s) ? s : undefined;
    }, { timeout: 60_000 });
    await wb.screenshot('wheel-01-started');
    const log = server.outputChannelText();
    assert.ok(status, `the status bar names the model; output channel:\n${log}`);
    assert.ok(
      log.includes(`Starting ${installed} lsp (the selected Python interpreter (${interpreter})`),
      `the extension says where the server came from:\n${log}`,
    );
    const pids = server.serverPids();
    assert.ok(pids.length > 0, 'an opscope lsp process runs');
    // The venv's `opscope` script replaces itself with the binary the wheel put in the venv.
    const venvDir = fs.realpathSync(venv) + path.sep;
    for (const pid of pids) {
      const exe = fs.readlinkSync(`/proc/${pid}/exe`);
      assert.ok(exe.startsWith(venvDir), `the server process runs the wheel's binary in the venv: ${exe}`);
    }
  });

  await step('the no-match warning and completion come from it', 'wheel-02-completion', async () => {
    const problems = await eventually(async () => {
      const r = await wb.problems();
      return r.some((x) => x.includes(example.badPattern)) ? r : undefined;
    }, { timeout: 30_000 });
    assert.ok(problems, `Problems lists ${example.badPattern}`);
    assert.match(problems.find((x) => x.includes(example.badPattern)), /matches no module/);
    await wb.closePanel();
    const tableLine = fs.readFileSync(path.join(ws, example.config.file), 'utf8').split('\n')
      .findIndex((l) => l.includes('module_name_configs:')) + 1;
    await wb.focusEditor();
    await wb.goTo(tableLine, 1);
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Home');
    await page.keyboard.type(`${example.config.keyIndent}${example.completion.prefix}`);
    const rows = await eventually(async () => {
      const r = await wb.complete(20_000).catch(() => []);
      if (r.some((x) => x.includes(example.completion.expect))) return r;
      await page.keyboard.press('Escape');
      return undefined;
    }, { timeout: 30_000, interval: 1000 });
    await wb.screenshot('wheel-02-completion');
    assert.ok(rows, `completion offers ${example.completion.expect}`);
  });
});
