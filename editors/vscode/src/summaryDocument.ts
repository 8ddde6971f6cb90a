// A read-only virtual document holding the model summary the server returned.
import * as vscode from 'vscode';

export const SUMMARY_SCHEME = 'opscope-summary';

export class SummaryDocuments implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Stores `text` under a URI named after the model and returns it (re-showing refreshes it). */
  set(modelName: string, text: string): vscode.Uri {
    const safe = modelName.replace(/[\\/?#]+/g, '_') || 'model';
    const uri = vscode.Uri.from({ scheme: SUMMARY_SCHEME, path: `/${safe} (summary)` });
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The summary text out of whatever shape the server's command returned. */
export function summaryText(result: unknown): string | undefined {
  if (typeof result === 'string') {
    return result;
  }
  if (result && typeof result === 'object') {
    const r = result as Record<string, unknown>;
    for (const key of ['text', 'summary', 'value']) {
      if (typeof r[key] === 'string') {
        return r[key] as string;
      }
    }
  }
  return undefined;
}
