// The status bar text for the server's `opscope/status` notification, without VS Code.

export interface StatusParams {
  state: 'loading' | 'ready' | 'failed' | string;
  model?: string;
  ops?: number;
  message?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
  isError: boolean;
}

/** The model's display name: the last path component, or the Python target's factory. */
export function modelDisplayName(model: string | undefined): string {
  if (!model) {
    return 'model';
  }
  const trimmed = model.replace(/[\\/]+$/, '');
  return trimmed.split(/[\\/]/).pop() || trimmed;
}

export function statusView(params: StatusParams): StatusView {
  const name = modelDisplayName(params.model);
  switch (params.state) {
    case 'loading':
      return {
        text: `$(sync~spin) opscope: ${name}`,
        tooltip: params.message || `opscope is indexing ${params.model ?? 'the model'}`,
        isError: false,
      };
    case 'ready': {
      const ops = typeof params.ops === 'number' ? ` · ${params.ops} ops` : '';
      return {
        text: `$(check) ${name}${ops}`,
        tooltip: params.message || `opscope: ${params.model ?? name} is indexed. Click for the server output.`,
        isError: false,
      };
    }
    case 'failed':
      return {
        text: `$(error) opscope: ${name}`,
        tooltip: `opscope could not load ${params.model ?? 'the model'}: ${params.message ?? 'unknown error'}. Click for the server output.`,
        isError: true,
      };
    default:
      return { text: `opscope: ${name}`, tooltip: params.message ?? '', isError: false };
  }
}
