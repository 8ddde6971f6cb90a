// Maps the `opscope.*` editor settings to what the server reads, without VS Code.
// The same object goes into `initializationOptions` at start and into
// `workspace/didChangeConfiguration` ({settings: {opscope: ...}}) on change.

export interface OpscopeSettings {
  path: string;
  model: string;
  mode: string;
  compressor: string;
  inputs: string[];
  python: string;
  /** Export without weight data (`weightless` in opscope.yaml); false follows opscope.yaml. */
  weightless: boolean;
  /** The transformers class for an `hf:` model (`hf_class` in opscope.yaml). */
  hfClass: string;
  /** Where the real weights are, for the weight error (`weights` in opscope.yaml). */
  weights: string;
}

/**
 * The server-facing options: only the settings the user set, so `opscope.yaml` keeps the rest,
 * plus the workspace's trust state (the server runs no interpreter for an untrusted workspace).
 */
export interface ServerOptionsPayload {
  model?: string;
  mode?: 'graph' | 'eager';
  compressor?: 'quantizer' | 'kmeans_palettizer' | 'magnitude_pruner';
  inputs?: string[];
  python?: string;
  weightless?: boolean;
  hfClass?: string;
  weights?: string;
  workspaceTrusted: boolean;
}

/**
 * Settings that choose a program to run (the binary, the interpreter, the Python target and its
 * inputs): a cloned repository's `.vscode/settings.json` must not set them. package.json lists
 * them in `capabilities.untrustedWorkspaces.restrictedConfigurations`, so VS Code drops their
 * workspace values in Restricted Mode; `trustAwareGetter` drops them here too.
 */
export const RESTRICTED_SETTINGS = ['path', 'python', 'model', 'inputs'] as const;

/** The values of one setting by origin, as `WorkspaceConfiguration.inspect` gives them. */
export interface SettingOrigins {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * A settings getter for `readSettings`. In an untrusted workspace the restricted settings come
 * from the user's (and the remote machine's) settings or the default only, never from the
 * workspace or folder settings, whatever the editor's own filtering does.
 */
export function trustAwareGetter(
  get: (key: string) => unknown,
  inspect: (key: string) => SettingOrigins | undefined,
  workspaceTrusted: boolean,
): (key: string) => unknown {
  const restricted = new Set<string>(RESTRICTED_SETTINGS);
  return (key) => {
    if (workspaceTrusted || !restricted.has(key)) {
      return get(key);
    }
    const origins = inspect(key);
    return origins?.globalValue ?? origins?.defaultValue;
  };
}

const MODES = new Set(['graph', 'eager']);
const COMPRESSORS = new Set(['quantizer', 'kmeans_palettizer', 'magnitude_pruner']);

/** Reads the raw settings (as `workspace.getConfiguration('opscope').get`) with defaults. */
export function readSettings(get: (key: string) => unknown): OpscopeSettings {
  const str = (key: string): string => {
    const value = get(key);
    return typeof value === 'string' ? value.trim() : '';
  };
  const inputsRaw = get('inputs');
  const inputs = Array.isArray(inputsRaw)
    ? inputsRaw.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim())
    : [];
  return {
    path: str('path'),
    model: str('model'),
    mode: str('mode'),
    compressor: str('compressor'),
    inputs,
    python: str('python'),
    weightless: get('weightless') === true,
    hfClass: str('hfClass'),
    weights: str('weights'),
  };
}

/**
 * The payload for the server. A relative `model` path is resolved against `workspaceFolder`
 * (a Python target `pkg.mod:factory` is left as it is: it names an import, not a file).
 * `workspaceTrusted` is VS Code's `workspace.isTrusted`.
 */
export function toServerOptions(
  settings: OpscopeSettings,
  workspaceFolder: string | undefined,
  workspaceTrusted: boolean,
): ServerOptionsPayload {
  const payload: ServerOptionsPayload = { workspaceTrusted };
  if (settings.model !== '') {
    payload.model = resolveModel(settings.model, workspaceFolder);
  }
  if (MODES.has(settings.mode)) {
    payload.mode = settings.mode as ServerOptionsPayload['mode'];
  }
  if (COMPRESSORS.has(settings.compressor)) {
    payload.compressor = settings.compressor as ServerOptionsPayload['compressor'];
  }
  if (settings.inputs.length > 0) {
    payload.inputs = [...settings.inputs];
  }
  if (settings.python !== '') {
    payload.python = settings.python;
  }
  // Only `true` is sent: an unticked box leaves opscope.yaml's `weightless` in force.
  if (settings.weightless) {
    payload.weightless = true;
  }
  if (settings.hfClass !== '') {
    payload.hfClass = settings.hfClass;
  }
  // Data the worker reads, never runs: a path, resolved as a model file is.
  if (settings.weights !== '') {
    payload.weights = resolvePath(settings.weights, workspaceFolder);
  }
  return payload;
}

function looksLikePath(model: string): boolean {
  // `file.py:factory` and archives/index files are paths; `package.module:factory` is not.
  const target = model.replace(/:[A-Za-z_][A-Za-z0-9_.]*$/, '');
  return /[\\/]/.test(target) || /\.(pt2|json|py)$/.test(target);
}

function resolveModel(model: string, workspaceFolder?: string): string {
  return looksLikePath(model) ? resolvePath(model, workspaceFolder) : model;
}

function resolvePath(file: string, workspaceFolder?: string): string {
  if (!workspaceFolder || file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file)) {
    return file;
  }
  const sep = workspaceFolder.endsWith('/') ? '' : '/';
  return `${workspaceFolder}${sep}${file.replace(/^\.\//, '')}`;
}

/** Which setting changes need a server restart rather than a didChangeConfiguration. */
export function needsRestart(changed: (section: string) => boolean): boolean {
  return changed('opscope.path');
}
