// Finds the `opscope` binary: the `opscope.path` setting, else the one on PATH, else the one
// bundled in the extension's `bin/` folder. No VS Code here, so it is unit-tested.
import * as path from 'path';

export interface Filesystem {
  isExecutable(file: string): boolean;
}

export interface ServerPathResult {
  command?: string;
  /** Where the binary came from, or why none was found (shown to the user). */
  explanation: string;
}

export function findServerBinary(
  setting: string,
  envPath: string | undefined,
  extensionDir: string,
  fs: Filesystem,
  platform: string = process.platform,
): ServerPathResult {
  const exe = platform === 'win32' ? 'opscope.exe' : 'opscope';
  if (setting !== '') {
    const expanded = setting.startsWith('~/') && process.env.HOME ? path.join(process.env.HOME, setting.slice(2)) : setting;
    if (fs.isExecutable(expanded)) {
      return { command: expanded, explanation: `opscope.path: ${expanded}` };
    }
    return {
      explanation: `The setting opscope.path is "${setting}", which is not an executable file. Fix the setting or clear it to use the opscope on PATH.`,
    };
  }
  const dirs = (envPath ?? '').split(platform === 'win32' ? ';' : ':').filter((d) => d !== '');
  for (const dir of dirs) {
    const candidate = path.join(dir, exe);
    if (fs.isExecutable(candidate)) {
      return { command: candidate, explanation: `PATH: ${candidate}` };
    }
  }
  const bundled = path.join(extensionDir, 'bin', exe);
  if (fs.isExecutable(bundled)) {
    return { command: bundled, explanation: `bundled: ${bundled}` };
  }
  return {
    explanation:
      'Cannot find the opscope binary: it is not on PATH and none is bundled. Install opscope or set opscope.path to its location.',
  };
}
