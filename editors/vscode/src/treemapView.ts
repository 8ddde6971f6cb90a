// "opscope: Show Treemap": the page `opscope explain CONFIG --html -` writes (issue 28: the model
// as a treemap, area its bytes, colour its bits per weight or SQNR, click for the deciding entry)
// in a webview beside the config. The CLI finds the model as `opscope check` does (the config's
// opscope.yaml, consent from `opscope trust` or the editor's trust prompt, the same cache).
import { execFile } from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';

const MAX_PAGE_BYTES = 16 * 1024 * 1024; // the page draws at most 2,000 rectangles: ~1 MB
const TIMEOUT_MS = 180_000;

/** The CLI's error in one line: its last line that says something. */
export function explainError(stderr: string, fallback: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l && !/^opscope: (exporting|inspecting) /.test(l));
  return lines.length ? lines[lines.length - 1].replace(/^opscope( explain)?: /, '') : fallback;
}

export class TreemapView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  async show(opscope: string, configPath: string, log: (line: string) => void): Promise<void> {
    const args = ['explain', configPath, '--html', '-'];
    log(`Running ${opscope} ${args.join(' ')}`);
    const page = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'opscope: drawing the treemap' },
      () =>
        new Promise<string | undefined>((resolve) => {
          execFile(
            opscope,
            args,
            { cwd: path.dirname(configPath), maxBuffer: MAX_PAGE_BYTES, timeout: TIMEOUT_MS, encoding: 'utf8' },
            (err, stdout, stderr) => {
              if (stderr) log(stderr.trimEnd());
              if (err) {
                void vscode.window.showErrorMessage(`opscope: no treemap: ${explainError(stderr, err.message)}`);
                resolve(undefined);
              } else {
                resolve(stdout);
              }
            },
          );
        }),
    );
    if (page === undefined) return;
    const title = `Treemap: ${path.basename(configPath)}`;
    if (!this.panel) {
      // The page is self-contained (inline CSS and JS, no network): scripts on, nothing to load.
      this.panel = vscode.window.createWebviewPanel('opscope.treemap', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: true,
        localResourceRoots: [],
      });
      this.panel.onDidDispose(() => (this.panel = undefined));
    }
    this.panel.title = title;
    this.panel.webview.html = page;
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
