// The opscope VS Code extension: starts `opscope lsp` over stdio for compression configs, shows
// the model's state in the status bar, and offers the summary / reload / restart commands.
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { commandTarget, DocumentView, isCommandTarget } from './commandTarget';
import { isConfigFileName, looksLikeCompressionConfig, PROJECT_FILE_NAME } from './configDetection';
import { keepConnection, RestartPolicy } from './restartPolicy';
import { onInterpreterChange, selectedInterpreter } from './pythonInterpreter';
import { findServer, ServerPathResult } from './serverPath';
import { needsRestart, readSettings, RESTRICTED_SETTINGS, toServerOptions, trustAwareGetter } from './settings';
import { modelDisplayName, StatusParams, statusView } from './status';
import { SUMMARY_SCHEME, SummaryDocuments, summaryText } from './summaryDocument';
import { TreemapView } from './treemapView';

const STATUS_NOTIFICATION = 'opscope/status';
const SERVER_COMMAND_SUMMARY = 'opscope.showSummary';
const SERVER_COMMAND_RELOAD = 'opscope.reloadModel';
const SERVER_COMMAND_TRUST = 'opscope.trustProject';

const realFs = {
  isExecutable(file: string): boolean {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  },
};

class OpscopeController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private output: vscode.OutputChannel | undefined;
  private statusItem: vscode.StatusBarItem | undefined;
  private lastModel: string | undefined;
  private stoppingOnPurpose = false;
  private watcher: vscode.FileSystemWatcher | undefined;
  private lastConfigUri: string | undefined;
  /** The binary was not found: no automatic retries until the settings change or a restart. */
  private missingBinary = false;
  /** Set once opscope has something to serve in this window. */
  private wanted = false;
  /** An opscope settings change arrived while the client was starting: applied once started. */
  private changeWhileStarting: { restart: boolean } | undefined;
  /** A restart asked for by a trust or settings change, about to happen. */
  private pendingRestart: ReturnType<typeof setTimeout> | undefined;
  private watchingInterpreter = false;
  private readonly restartPolicy = new RestartPolicy();
  private readonly summaries = new SummaryDocuments();
  private readonly treemap = new TreemapView();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly context: vscode.ExtensionContext) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SUMMARY_SCHEME, this.summaries),
      this.summaries,
      this.treemap,
      // The command IDs differ from the server's executeCommand IDs: the language client
      // registers those itself and two registrations of one ID would clash.
      vscode.commands.registerCommand('opscope.editor.showSummary', () => this.showSummary()),
      vscode.commands.registerCommand('opscope.editor.showTreemap', () => this.showTreemap()),
      vscode.commands.registerCommand('opscope.editor.reloadModel', () => this.reloadModel()),
      vscode.commands.registerCommand('opscope.editor.trustProject', () => this.trustProject()),
      vscode.commands.registerCommand('opscope.editor.restartServer', () => this.restart('by request')),
      vscode.commands.registerCommand('opscope.editor.showOutput', () => this.outputChannel().show(true)),
      vscode.workspace.onDidOpenTextDocument((doc) => this.consider(doc)),
      vscode.workspace.onDidChangeTextDocument((e) => this.consider(e.document)),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      // The server learns the trust state at initialize only: a new one may run the model now.
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.onTrustGranted()),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        const doc = documentView(editor?.document);
        if (isCommandTarget(doc)) {
          this.lastConfigUri = doc.uri;
        }
      }),
    );
  }

  /** A newly selected interpreter may hold another opscope (or the first one). */
  private watchInterpreter(): void {
    if (this.watchingInterpreter) {
      return;
    }
    this.watchingInterpreter = true;
    void onInterpreterChange(() => {
      if (this.wanted && this.settings().path === '') {
        this.scheduleRestart('the selected Python interpreter changed');
      }
    }).then((listener) => listener && this.disposables.push(listener));
  }

  /** Starts the server once a document that opscope serves shows up. */
  consider(doc: vscode.TextDocument): void {
    if (this.client || this.starting || this.missingBinary || doc.uri.scheme !== 'file') {
      return;
    }
    if (isConfigFileName(doc.uri.fsPath) || looksLikeCompressionConfig(doc.languageId, doc.getText())) {
      void this.start();
    }
  }

  async start(): Promise<void> {
    this.wanted = true;
    if (this.client || this.starting) {
      return this.starting;
    }
    this.starting = this.startClient().finally(() => {
      this.starting = undefined;
      const change = this.changeWhileStarting;
      this.changeWhileStarting = undefined;
      if (change) {
        // E.g. opscope.path arrived after the start had read the settings.
        this.applySettingsChange(change.restart);
      }
    });
    return this.starting;
  }

  private outputChannel(): vscode.OutputChannel {
    if (!this.output) {
      this.output = vscode.window.createOutputChannel('opscope');
      this.disposables.push(this.output);
    }
    return this.output;
  }

  private status(): vscode.StatusBarItem {
    if (!this.statusItem) {
      this.statusItem = vscode.window.createStatusBarItem('opscope.status', vscode.StatusBarAlignment.Left, 10);
      this.statusItem.name = 'opscope';
      this.statusItem.command = 'opscope.editor.showOutput';
      this.disposables.push(this.statusItem);
    }
    return this.statusItem;
  }

  private showStatus(params: StatusParams): void {
    if (params.model) {
      this.lastModel = params.model;
    }
    const view = statusView(params);
    const item = this.status();
    item.text = view.text;
    item.tooltip = view.tooltip;
    item.backgroundColor = view.isError ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    item.show();
  }

  private settings() {
    const config = vscode.workspace.getConfiguration('opscope');
    return readSettings(
      trustAwareGetter(
        (key) => config.get(key),
        (key) => config.inspect(key),
        vscode.workspace.isTrusted,
      ),
    );
  }

  private serverOptionsPayload() {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return toServerOptions(this.settings(), folder, vscode.workspace.isTrusted);
  }

  private onTrustGranted(): void {
    if (this.wanted) {
      this.scheduleRestart('the workspace is now trusted');
    }
  }

  /**
   * Granting trust also changes the settings it unlocks (opscope.path may be among them): VS Code
   * reports both at once, and one restart serves both, so the server asks its question once.
   */
  private scheduleRestart(why: string): void {
    if (this.pendingRestart) {
      clearTimeout(this.pendingRestart);
    }
    this.pendingRestart = setTimeout(() => {
      this.pendingRestart = undefined;
      void this.restart(why);
    }, 300);
  }

  /**
   * opscope.path, the selected Python interpreter's opscope, PATH (serverPath.ts). In Restricted
   * Mode the interpreter is skipped: the workspace may select its own .venv, whose opscope is
   * the repository's code.
   */
  private async findServer(setting: string): Promise<ServerPathResult> {
    // Only asked when it matters: the Python extension may be slow to activate.
    const askInterpreter = vscode.workspace.isTrusted && setting === '';
    if (askInterpreter) {
      this.watchInterpreter();
    }
    const interpreter = askInterpreter ? await selectedInterpreter(vscode.workspace.workspaceFolders?.[0]?.uri) : undefined;
    return findServer({ setting, interpreter, envPath: process.env.PATH, extensionDir: this.context.extensionPath, fs: realFs });
  }

  /** No binary: offers `pip install opscope` in the selected interpreter, then restarts. */
  private offerInstall(found: ServerPathResult): void {
    const install = found.installCommand;
    const actions = install ? ['Install with pip', 'Open Settings'] : ['Open Settings'];
    void vscode.window.showErrorMessage(found.explanation, ...actions).then((pick) => {
      if (pick === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'opscope.path');
      } else if (pick && install) {
        const terminal = vscode.window.createTerminal({ name: 'opscope: pip install' });
        const quoted = install.map((a) => (/^[\w./:=-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
        terminal.sendText(`${quoted.join(' ')} && exit`);
        terminal.show();
        const closed = vscode.window.onDidCloseTerminal((t) => {
          if (t === terminal) {
            closed.dispose();
            void this.restart('opscope was installed in the selected Python interpreter');
          }
        });
        this.disposables.push(closed);
      }
    });
  }

  private async startClient(): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'opscope.active', true);
    const settings = this.settings();
    const found = await this.findServer(settings.path);
    const output = this.outputChannel();
    if (!found.command) {
      this.missingBinary = true;
      output.appendLine(found.explanation);
      this.showStatus({ state: 'failed', model: 'opscope', message: found.explanation });
      this.offerInstall(found);
      return;
    }
    this.missingBinary = false;
    output.appendLine(`Starting ${found.command} lsp (${found.explanation})`);
    if (!vscode.workspace.isTrusted) {
      output.appendLine(
        `Restricted Mode: the workspace's own values of ${RESTRICTED_SETTINGS.map((k) => `opscope.${k}`).join(', ')} ` +
          'are ignored, and the server runs no Python until you trust the workspace.',
      );
    }

    const serverOptions: ServerOptions = {
      command: found.command,
      args: ['lsp'],
      transport: TransportKind.stdio,
    };
    // The server may also register its own watchers; these cover clients-side defaults.
    const watcher = vscode.workspace.createFileSystemWatcher(`**/{${PROJECT_FILE_NAME},*.pt2,*.py}`);
    this.watcher?.dispose();
    this.watcher = watcher;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'yaml' },
        { scheme: 'file', language: 'json' },
        { scheme: 'file', language: 'jsonc' },
        // Training scripts: the server answers only inside the strings of coreai-opt and PEFT config
        // calls (and ignores a file without one); everything else stays the Python extension's.
        { scheme: 'file', language: 'python' },
      ],
      initializationOptions: this.serverOptionsPayload(),
      middleware: {
        workspace: {
          // The server also pulls its settings (workspace/configuration): it gets the same
          // trust-aware payload as at initialize, not the raw section.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            return params.items.map((item, i) => (item.section === 'opscope' ? this.serverOptionsPayload() : answers[i]));
          },
        },
      },
      outputChannel: output,
      synchronize: { fileEvents: watcher },
      errorHandler: {
        error: (_error, _message, count) =>
          keepConnection(count) ? { action: ErrorAction.Continue } : { action: ErrorAction.Shutdown },
        closed: () => this.onServerClosed(),
      },
    };
    const client = new LanguageClient('opscope', 'opscope', serverOptions, clientOptions);
    client.onNotification(STATUS_NOTIFICATION, (params: StatusParams) => this.showStatus(params));
    client.onDidChangeState((e) => {
      if (e.newState === State.Starting) {
        this.showStatus({ state: 'loading', model: this.lastModel ?? 'opscope', message: 'Starting the opscope server' });
      }
    });
    this.client = client;
    this.showStatus({ state: 'loading', model: 'opscope', message: 'Starting the opscope server' });
    try {
      await client.start();
    } catch (err) {
      const message = `Could not start ${found.command} lsp: ${err instanceof Error ? err.message : String(err)}`;
      output.appendLine(message);
      this.showStatus({ state: 'failed', model: 'opscope', message });
    }
  }

  private onServerClosed() {
    if (this.stoppingOnPurpose) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const decision = this.restartPolicy.onCrash();
    this.outputChannel().appendLine(decision.message);
    if (decision.restart) {
      void vscode.window.showWarningMessage(decision.message);
      this.showStatus({ state: 'loading', model: this.lastModel ?? 'opscope', message: decision.message });
    } else {
      void vscode.window.showErrorMessage(decision.message, 'Restart Server').then((pick) => {
        if (pick) {
          void this.restart('by request');
        }
      });
      this.showStatus({ state: 'failed', model: this.lastModel ?? 'opscope', message: decision.message });
    }
    return { action: decision.restart ? CloseAction.Restart : CloseAction.DoNotRestart, handled: true };
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) {
      return;
    }
    this.stoppingOnPurpose = true;
    try {
      if (client.state !== State.Stopped) {
        await client.stop(5000);
      }
    } catch (err) {
      this.outputChannel().appendLine(`Stopping the server: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.stoppingOnPurpose = false;
    }
  }

  async restart(why: string): Promise<void> {
    this.outputChannel().appendLine(`Restarting the opscope server (${why}).`);
    this.restartPolicy.reset();
    this.missingBinary = false;
    await this.stop();
    await this.start();
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('opscope')) {
      return;
    }
    const restart = needsRestart((section) => e.affectsConfiguration(section));
    this.outputChannel().appendLine(
      `The opscope settings changed${this.starting ? ' while the server was starting' : ''}; opscope.path is "${this.settings().path}".`,
    );
    if (this.starting) {
      this.changeWhileStarting = { restart: restart || !!this.changeWhileStarting?.restart };
      return;
    }
    this.applySettingsChange(restart);
  }

  private applySettingsChange(restart: boolean): void {
    if (!this.client) {
      // E.g. opscope.path was just set after "cannot find the opscope binary".
      if (this.wanted) {
        this.missingBinary = false;
        void this.start();
      }
      return;
    }
    if (restart) {
      this.scheduleRestart('opscope.path changed');
      return;
    }
    if (this.pendingRestart) {
      return; // the new server reads the settings as they are then
    }
    if (this.client.state === State.Running) {
      void this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { opscope: this.serverOptionsPayload() },
      });
    }
  }

  /** The config the command is about (commandTarget.ts); none: the server takes every open one. */
  private commandArguments(): unknown[] {
    const target = commandTarget(
      documentView(vscode.window.activeTextEditor?.document),
      this.lastConfigUri,
      vscode.workspace.textDocuments.map((d) => documentView(d)!),
    );
    return target ? [target] : [];
  }

  private async runningClient(): Promise<LanguageClient | undefined> {
    if (!this.client) {
      await this.start();
    }
    if (!this.client) {
      void vscode.window.showErrorMessage('The opscope server is not running. See the "opscope" output.');
      return undefined;
    }
    if (this.client.state !== State.Running) {
      await this.client.start().catch(() => undefined);
    }
    return this.client;
  }

  async showSummary(): Promise<void> {
    const client = await this.runningClient();
    if (!client) {
      return;
    }
    let result: unknown;
    try {
      result = await client.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_COMMAND_SUMMARY,
        arguments: this.commandArguments(),
      });
    } catch (err) {
      void vscode.window.showErrorMessage(`opscope: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const text = summaryText(result);
    if (text === undefined) {
      void vscode.window.showWarningMessage('opscope: the server returned no summary (is the model loaded?).');
      return;
    }
    const uri = this.summaries.set(modelDisplayName(this.lastModel), text);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
  }

  /** The config's treemap (`opscope explain --html`) in a webview beside it. */
  async showTreemap(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('opscope runs no Python in Restricted Mode. Trust the workspace first.');
      return;
    }
    const [target] = this.commandArguments();
    if (typeof target !== 'string') {
      void vscode.window.showWarningMessage('opscope: open a compression config to draw its treemap.');
      return;
    }
    const found = await this.findServer(this.settings().path);
    if (!found.command) {
      void vscode.window.showErrorMessage(`opscope: ${found.explanation}`);
      return;
    }
    const output = this.outputChannel();
    await this.treemap.show(found.command, vscode.Uri.parse(target).fsPath, (line) => output.appendLine(line));
  }

  async reloadModel(): Promise<void> {
    await this.runServerCommand(SERVER_COMMAND_RELOAD);
  }

  /** Consent to run the project's model (after "Not now"); the server remembers it per content. */
  async trustProject(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      // The server refuses anyway: send the user where the decision is made.
      const pick = await vscode.window.showWarningMessage(
        'opscope runs no Python in Restricted Mode. Trust the workspace first.',
        'Manage Workspace Trust',
      );
      if (pick) {
        void vscode.commands.executeCommand('workbench.trust.manage');
      }
      return;
    }
    await this.runServerCommand(SERVER_COMMAND_TRUST);
  }

  private async runServerCommand(command: string): Promise<void> {
    const client = await this.runningClient();
    if (!client) {
      return;
    }
    try {
      await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: this.commandArguments() });
    } catch (err) {
      void vscode.window.showErrorMessage(`opscope: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  dispose(): void {
    if (this.pendingRestart) {
      clearTimeout(this.pendingRestart);
    }
    void this.stop();
    this.watcher?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** A TextDocument as commandTarget.ts sees it (its text read only when needed). */
function documentView(doc: vscode.TextDocument | undefined): DocumentView | undefined {
  return doc && { uri: doc.uri.toString(), scheme: doc.uri.scheme, languageId: doc.languageId, text: () => doc.getText() };
}

let controller: OpscopeController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  controller = new OpscopeController(context);
  context.subscriptions.push(controller);
  const hasProject = (await vscode.workspace.findFiles(`**/${PROJECT_FILE_NAME}`, '**/node_modules/**', 1)).length > 0;
  if (hasProject) {
    await controller.start();
    return;
  }
  for (const doc of vscode.workspace.textDocuments) {
    controller.consider(doc);
  }
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
}
