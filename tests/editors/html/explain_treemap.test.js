// `opscope explain CONFIG --html OUT.html` (issue 28) in headless Chromium, as a user opens it:
// the bundled example (examples/resnet) exported with its weights, so the page colours by the
// SQNR opscope-weights measures. The page must load nothing from the network, draw one
// rectangle per module owning weights with its area proportional to the module's bytes (the
// numbers of `explain --json`, the same data), show a module's bytes, bits, SQNR and deciding
// entry on hover and click, and switch its colour to bits per weight. The screenshot is
// $OPSCOPE_SCREENSHOTS/explain-html-treemap.png (editors/images/ keeps a copy for the README).
//
// env: OPSCOPE_BIN (the built opscope), OPSCOPE_PYTHON (the model's Python), OPSCOPE_EDITOR_TOOLS
// (playwright-core, from tests/editors/install.sh), OPSCOPE_EDITOR_WORK, OPSCOPE_SCREENSHOTS,
// OPSCOPE_CHROMIUM (default /usr/bin/chromium).
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { test } = require('node:test');
const { example, prepareWorkspace } = require('../example');

const env = (name, fallback) => process.env[name] || fallback;
const repo = path.resolve(__dirname, '..', '..', '..');
const opscope = path.resolve(env('OPSCOPE_BIN', path.join(repo, 'build', 'opscope')));
const python = env('OPSCOPE_PYTHON', path.join(repo, '.venv', 'bin', 'python'));
const tools = path.resolve(env('OPSCOPE_EDITOR_TOOLS', path.join(repo, 'build', 'editor-tools')));
const work = path.resolve(env('OPSCOPE_EDITOR_WORK', path.join(tools, 'work')), 'explain-html');
const shots = path.resolve(env('OPSCOPE_SCREENSHOTS', path.join(work, 'screenshots')));

test('explain --html: the treemap of the example, in Chromium', async (t) => {
  const folder = prepareWorkspace(path.join(work, 'project'));
  const runEnv = { ...process.env, XDG_CACHE_HOME: path.join(work, 'cache'), NO_COLOR: '1' };
  const run = (args) => execFileSync(opscope, args, { cwd: folder, env: runEnv, encoding: 'utf8' });
  // The example's model with its weights (the default export is weightless: no SQNR then).
  run(['export', 'model.py:build', '--input', '1x3x64x64', '--with-weights', '-o', 'model.pt2',
    '--python', python, '--quiet']);
  const explained = JSON.parse(run(['explain', example.config.file, '--model', 'model.pt2', '--json']));
  run(['explain', example.config.file, '--model', 'model.pt2', '--html', 'treemap.html']);
  const modules = explained.size.module_bits; // module -> {weights, before, after} in bits
  assert.ok(Object.keys(modules).length > 20, 'the example has modules owning weights');

  const { chromium } = require(path.join(tools, 'node_modules', 'playwright-core'));
  const browser = await chromium.launchPersistentContext(path.join(work, 'chromium'), {
    executablePath: env('OPSCOPE_CHROMIUM', '/usr/bin/chromium'),
    headless: true,
    viewport: { width: 1280, height: 760 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.after(() => browser.close().catch(() => {}));
  const page = browser.pages()[0] || (await browser.newPage());
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const url = pathToFileURL(path.join(folder, 'treemap.html')).href;
  await page.goto(url);
  await page.locator('#map .leaf').first().waitFor();
  assert.deepEqual(errors, [], 'the page runs without errors');
  assert.deepEqual(requests.filter((u) => u !== url), [], 'the page loads nothing else');

  // One rectangle per module owning weights, its area proportional to its bytes after the
  // config: the same area per byte for every rectangle (the map is filled, nothing padded).
  const leaves = await page.locator('#map .leaf').evaluateAll((els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    return { name: e.dataset.name, area: r.width * r.height, w: r.width, h: r.height };
  }));
  assert.deepEqual(leaves.map((l) => l.name).sort(), Object.keys(modules).sort());
  const totalBytes = Object.values(modules).reduce((s, m) => s + m.after / 8, 0);
  const map = await page.locator('#map').evaluate((e) => e.clientWidth * e.clientHeight);
  const perByte = map / totalBytes;
  for (const l of leaves) {
    const expected = (modules[l.name].after / 8) * perByte;
    // Sub-pixel rounding aside (a thin sliver of a BatchNorm is a pixel or two wide).
    const slack = Math.max(0.01 * expected, 1.5 * (l.w + l.h));
    assert.ok(Math.abs(l.area - expected) <= slack,
      `${l.name}: ${l.area.toFixed(0)} px² for ${modules[l.name].after / 8} bytes, expected ${expected.toFixed(0)}`);
  }
  // The biggest rectangle is a module of the most bytes.
  const most = Math.max(...Object.values(modules).map((m) => m.after));
  assert.equal(modules[leaves.sort((a, b) => b.area - a.area)[0].name].after, most);

  // Hover: the module, its bytes and bits, its SQNR and entry, in a tooltip.
  const conv = page.locator('#map .leaf[data-name="layer1.0.conv1"]');
  await conv.hover();
  const tip = page.locator('#tip');
  await tip.waitFor({ state: 'visible' });
  const tipText = await tip.innerText();
  assert.match(tipText, /layer1\.0\.conv1/);
  assert.match(tipText, /bits per weight, \d+\.\d\d dB/);
  assert.match(tipText, /module_name_configs > layer1\\\.\.\*\s+\(line 14\)/);

  // Click: the details panel keeps the module with the entry that decides it, as explain does.
  const entry = explained.modules.find((m) => m.module === 'layer1.0.conv1').entry;
  assert.deepEqual(entry.path, ['quantization_config', 'module_name_configs', 'layer1\\..*']);
  await conv.click();
  const details = page.locator('#details');
  await details.locator('h2', { hasText: 'layer1.0.conv1' }).waitFor();
  const shown = await details.innerText();
  assert.match(shown, /deciding entry\s+module_name_configs > layer1\\\.\.\*\s+\(line 14\)/);
  assert.match(shown, /int8 symmetric/);
  const sqnr = explained.weight_error.parameters.find((p) => p.parameter === 'layer1.0.conv1.weight');
  assert.match(shown, new RegExp(`SQNR\\s+${sqnr.sqnr_db.toFixed(2)} dB`));
  // A module the config leaves in full precision says so, with its entry.
  await page.locator('#map .leaf[data-name="fc"]').click();
  await details.locator('h2', { hasText: 'fc' }).waitFor();
  assert.match(await details.innerText(),
    /module_type_configs > torch\.nn\.modules\.linear\.Linear\s+\(line \d+\)\s+leaves it in full precision/);
  await conv.click();
  await page.mouse.move(5, 5);
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'explain-html-treemap.png') });

  // Colour by bits per weight: the legend says so, and the full-precision fc differs from the
  // int8 convolution.
  await page.locator('#colour').selectOption('bits');
  assert.match(await page.locator('#legend').innerText(), /bits per weight/);
  const colour = (name) => page.locator(`#map .leaf[data-name="${name}"]`).evaluate((e) => e.style.backgroundColor);
  assert.notEqual(await colour('fc'), await colour('layer1.0.conv1'));
  assert.equal(await colour('layer1.0.conv2'), await colour('layer1.0.conv1'));
  await page.screenshot({ path: path.join(shots, 'explain-html-treemap-bits.png') });
});
