// The Python interpreter selected for the workspace, from the Python extension's API
// (ms-python.python), so the server can be the `opscope` installed in it. Without the Python
// extension: the `python.defaultInterpreterPath` setting, when it names a file.
import * as vscode from 'vscode';

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
  resolveEnvironment(env: { path: string } | string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
  settings?: { getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined } };
}

const PYTHON_EXTENSION = 'ms-python.python';

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined; // a broken Python extension must not stop opscope
  }
}

/** The selected interpreter's executable, or undefined when none is known. */
export async function selectedInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonApi();
  try {
    const environments = api?.environments;
    if (environments) {
      const active = environments.getActiveEnvironmentPath(resource);
      const resolved = await environments.resolveEnvironment(active);
      const executable = resolved?.executable.uri?.fsPath;
      if (executable) {
        return executable;
      }
      if (active.path) {
        return active.path;
      }
    }
    const command = api?.settings?.getExecutionDetails(resource).execCommand;
    if (command && command.length === 1) {
      return command[0];
    }
  } catch {
    // Fall through to the setting.
  }
  const setting = vscode.workspace.getConfiguration('python', resource).get<string>('defaultInterpreterPath', '');
  if (setting && setting !== 'python' && setting !== 'python3') {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
    return setting.replace('${workspaceFolder}', folder);
  }
  return undefined;
}

/** Calls `listener` when the user selects another interpreter (no-op without the Python extension). */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const event = (await pythonApi())?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(() => listener()) : undefined;
}
