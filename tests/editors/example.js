// The bundled example project the editor tests run against, and what they expect from it
// (example.json, shared with the Neovim and Emacs tests).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..');
const raw = JSON.parse(fs.readFileSync(path.join(__dirname, 'example.json'), 'utf8'));
const re = (list) => list.map((s) => new RegExp(s));

const example = {
  dir: path.resolve(repo, process.env.OPSCOPE_EXAMPLE_DIR || raw.dir),
  config: raw.config,
  completion: raw.completion,
  hover: { pattern: raw.hover.pattern, expect: re(raw.hover.expect_re) },
  badPattern: raw.badPattern,
  summary: { expect: re(raw.summary.expect_re) },
  rename: raw.rename,
};

/** Copies the example into `dest` (fresh: editors save into it), without caches. */
function prepareWorkspace(dest) {
  fs.rmSync(dest, { recursive: true, force: true });
  fs.cpSync(example.dir, dest, {
    recursive: true,
    filter: (src) => !/(__pycache__|\.opscope-cache|\.pytest_cache)$/.test(src),
  });
  return dest;
}

module.exports = { example, prepareWorkspace };
