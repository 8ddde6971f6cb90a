// Starts code-server (VS Code in the browser) in a fresh, throw-away home, with the opscope
// extension installed, and stops it again. Everything it writes stays under `root`.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const quietSettings = {
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  // Workspace trust as users have it: on, asking once per folder. Each test decides each folder's
  // trust in the startup dialog (Workbench.answerTrustPrompt).
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'once',
  'git.enabled': false,
  'editor.minimap.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.commandCenter.enabled': false,
  'window.commandCenter': false,
  'files.autoSave': 'off',
  'editor.fontFamily': "'DejaVu Sans Mono', monospace",
};

class CodeServer {
  /**
   * @param {object} o
   * @param {string} o.tools   folder whose node_modules holds code-server
   * @param {string} o.root    fresh folder for the user data, extensions and XDG homes
   * @param {string} o.vsix    the extension package to install
   * @param {object} o.env     extra environment for code-server and the extension host
   * @param {object} o.settings extra user settings
   * @param {object} o.machineSettings settings of the remote machine (code-server's host). VS Code
   *   ignores machine and machine-overridable settings (opscope.path) from user settings in a
   *   remote window once their scope is registered, so those belong here.
   */
  constructor(o) {
    this.bin = path.join(o.tools, 'node_modules', '.bin', 'code-server');
    this.root = o.root;
    this.vsix = o.vsix;
    this.extraEnv = o.env || {};
    this.settings = { ...quietSettings, ...(o.settings || {}) };
    this.machineSettings = o.machineSettings || {};
    this.proc = undefined;
    this.log = path.join(o.root, 'code-server.log');
  }

  env() {
    const home = (p) => path.join(this.root, p);
    for (const p of ['config', 'data', 'cache', 'tmp']) fs.mkdirSync(home(p), { recursive: true });
    return {
      ...process.env,
      ...this.extraEnv,
      XDG_CONFIG_HOME: home('config'),
      XDG_DATA_HOME: home('data'),
      XDG_CACHE_HOME: home('cache'),
      TMPDIR: home('tmp'),
      HOME: this.root,
    };
  }

  dirs() {
    return ['--user-data-dir', path.join(this.root, 'user'), '--extensions-dir', path.join(this.root, 'ext')];
  }

  installExtension() {
    const writeSettings = (dir, settings) => {
      fs.mkdirSync(path.join(this.root, 'user', dir), { recursive: true });
      fs.writeFileSync(path.join(this.root, 'user', dir, 'settings.json'), JSON.stringify(settings, null, 2));
    };
    writeSettings('User', this.settings);
    writeSettings('Machine', this.machineSettings);
    execFileSync(this.bin, [...this.dirs(), '--install-extension', this.vsix, '--force'], {
      env: this.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    const installed = fs.readdirSync(path.join(this.root, 'ext')).filter((d) => d.startsWith('opscope.opscope-'));
    if (installed.length === 0) throw new Error(`code-server did not install ${this.vsix}`);
  }

  async start(folder) {
    this.port = await freePort();
    const out = fs.openSync(this.log, 'a');
    this.proc = spawn(
      this.bin,
      [
        ...this.dirs(),
        '--bind-addr', `127.0.0.1:${this.port}`,
        '--auth', 'none',
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-getting-started-override',
        '--ignore-last-opened',
        folder,
      ],
      { env: this.env(), stdio: ['ignore', out, out], detached: true },
    );
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (this.proc.exitCode !== null) {
        throw new Error(`code-server exited with ${this.proc.exitCode}; see ${this.log}`);
      }
      try {
        const r = await fetch(`http://127.0.0.1:${this.port}/healthz`);
        if (r.ok) return `http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(folder)}`;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`code-server did not answer /healthz within 60 s; see ${this.log}`);
  }

  /** Process ids of everything code-server started (the extension host, the language server...). */
  descendants() {
    if (!this.proc) return [];
    const children = new Map();
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (!children.has(ppid)) children.set(ppid, []);
        children.get(ppid).push(Number(pid));
      } catch {
        /* gone */
      }
    }
    const found = [];
    const walk = (pid) => {
      for (const c of children.get(pid) || []) {
        found.push(c);
        walk(c);
      }
    };
    walk(this.proc.pid);
    return found;
  }

  /**
   * The text of the extension's "opscope" output channel: VS Code writes every extension output
   * channel to a log file under the user data folder's logs (the latest window's). '' if none yet.
   */
  outputChannelText(name = 'opscope') {
    const found = [];
    const walk = (dir) => {
      let entries = [];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (new RegExp(`^\\d+-${name}\\.log$`).test(e.name)) found.push(p);
      }
    };
    walk(path.join(this.root, 'user', 'logs'));
    return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  }

  /** Pids of the `opscope lsp` processes this code-server started (never anyone else's). */
  serverPids() {
    return this.descendants().filter((pid) => {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        // argv[0] is opscope itself, or an interpreter running an opscope script.
        const at = argv.findIndex((a) => /(^|\/)opscope$/.test(a));
        return at >= 0 && at <= 1 && argv[at + 1] === 'lsp';
      } catch {
        return false;
      }
    });
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null) return;
    // code-server runs in its own process group: end the whole group (ours alone).
    try {
      process.kill(-this.proc.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const deadline = Date.now() + 5000;
    while (this.proc.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    try {
      process.kill(-this.proc.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

module.exports = { CodeServer };
