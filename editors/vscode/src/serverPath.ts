// Finds the `opscope` binary, in this order: the `opscope.path` setting; the `opscope` installed
// in the Python interpreter selected for the workspace (`pip install opscope` puts it next to
// that interpreter); the one on PATH; the one bundled in the extension's `bin/` folder. No VS
// Code here, so it is unit-tested.
import * as path from 'path';

export interface Filesystem {
  isExecutable(file: string): boolean;
}

export interface ServerPathResult {
  command?: string;
  /** Where the binary came from, or why none was found (shown to the user). */
  explanation: string;
  /** When none was found and an interpreter is selected: the command that installs opscope in it. */
  installCommand?: string[];
}

export interface ServerSearch {
  /** The opscope.path setting ('' when unset). */
  setting: string;
  /** The selected Python interpreter's executable, if the Python extension (or its setting) names one. */
  interpreter?: string;
  envPath: string | undefined;
  extensionDir: string;
  fs: Filesystem;
  platform?: string;
}

/** Where `pip install` puts console scripts for this interpreter: the folder it lives in (venv
 * bin/ or Scripts\), and for a Windows base install its Scripts\ folder. */
function interpreterScriptDirs(interpreter: string, platform: string): string[] {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const dir = p.dirname(interpreter);
  return platform === 'win32' ? [dir, p.join(dir, 'Scripts')] : [dir];
}

export function findServer(search: ServerSearch): ServerPathResult {
  const platform = search.platform ?? process.platform;
  const fs = search.fs;
  const exe = platform === 'win32' ? 'opscope.exe' : 'opscope';
  const setting = search.setting;
  if (setting !== '') {
    const expanded = setting.startsWith('~/') && process.env.HOME ? path.join(process.env.HOME, setting.slice(2)) : setting;
    if (fs.isExecutable(expanded)) {
      return { command: expanded, explanation: `opscope.path: ${expanded}` };
    }
    return {
      explanation: `The setting opscope.path is "${setting}", which is not an executable file. Fix the setting or clear it to use the opscope of the selected Python interpreter or on PATH.`,
    };
  }
  const interpreter = search.interpreter && search.interpreter !== '' ? search.interpreter : undefined;
  if (interpreter) {
    const p = platform === 'win32' ? path.win32 : path.posix;
    for (const dir of interpreterScriptDirs(interpreter, platform)) {
      const candidate = p.join(dir, exe);
      if (fs.isExecutable(candidate)) {
        return { command: candidate, explanation: `the selected Python interpreter (${interpreter}): ${candidate}` };
      }
    }
  }
  const dirs = (search.envPath ?? '').split(platform === 'win32' ? ';' : ':').filter((d) => d !== '');
  for (const dir of dirs) {
    const candidate = path.join(dir, exe);
    if (fs.isExecutable(candidate)) {
      return { command: candidate, explanation: `PATH: ${candidate}` };
    }
  }
  const bundled = path.join(search.extensionDir, 'bin', exe);
  if (fs.isExecutable(bundled)) {
    return { command: bundled, explanation: `bundled: ${bundled}` };
  }
  if (interpreter) {
    return {
      explanation: `Cannot find the opscope binary: it is not installed in the selected Python interpreter (${interpreter}) nor on PATH. Install it there with \`${interpreter} -m pip install opscope\`, or set opscope.path to its location.`,
      installCommand: [interpreter, '-m', 'pip', 'install', 'opscope'],
    };
  }
  return {
    explanation:
      'Cannot find the opscope binary: no Python interpreter is selected (Python extension) and it is not on PATH. Install it with `pip install opscope` in your project\'s environment and select that interpreter, or set opscope.path to its location.',
  };
}

/** The lookup without an interpreter (kept for callers that have none). */
export function findServerBinary(
  setting: string,
  envPath: string | undefined,
  extensionDir: string,
  fs: Filesystem,
  platform: string = process.platform,
): ServerPathResult {
  return findServer({ setting, envPath, extensionDir, fs, platform });
}
