// Decides whether a document is a compression config opscope should serve, without VS Code.
// A config is a YAML or JSON file whose root holds one of coreai-opt's config keys, or a Python
// file that imports coreai_opt or calls one of its config classes (a training script).

export const CONFIG_ROOT_KEYS = [
  'quantization_config',
  'kmeans_palettization_config',
  'magnitude_pruning_config',
] as const;

export const PROJECT_FILE_NAME = 'opscope.yaml';

const CONFIG_LANGUAGES = new Set(['yaml', 'json', 'jsonc']);

const keyAlternatives = CONFIG_ROOT_KEYS.join('|');
// YAML: the key at column 0 (a root key), optionally quoted, followed by a colon.
const yamlRootKey = new RegExp(`^(?:["']?)(?:${keyAlternatives})(?:["']?)[ \\t]*:`, 'm');
// JSON: the quoted key followed by a colon. Nesting is not checked: coreai-opt configs are small
// and these keys only ever appear at the root.
const jsonKey = new RegExp(`"(?:${keyAlternatives})"\\s*:`);

// Python: an import of coreai_opt, or a config class called or used (`QuantizerConfig(`,
// `QuantizerConfig.from_dict`), on a line's code, not in its comment (a script that only
// mentions coreai-opt in a comment is left to the Python extension alone).
const pythonImport = /^[ \t]*(?:from[ \t]+coreai_opt(?:\.[\w.]*)?[ \t]+import\b|import[ \t]+coreai_opt\b)/m;
const pythonConfigClass = /^[^#\n]*\b(?:Quantizer|KMeansPalettizer|MagnitudePruner)Config[ \t]*[.(]/m;

/** True when `text` in language `languageId` looks like a coreai-opt compression config. */
export function looksLikeCompressionConfig(languageId: string, text: string): boolean {
  if (!CONFIG_LANGUAGES.has(languageId) && languageId !== 'python') {
    return false;
  }
  // Only the head of huge documents is scanned: the root key (or the imports) come first in practice.
  const head = text.length > 200_000 ? text.slice(0, 200_000) : text;
  if (languageId === 'python') {
    return pythonImport.test(head) || pythonConfigClass.test(head);
  }
  return languageId === 'yaml' ? yamlRootKey.test(head) : jsonKey.test(head);
}

/** True for the project file itself (`opscope.yaml`), which opscope also serves. */
export function isProjectFile(fsPath: string): boolean {
  const base = fsPath.split(/[\\/]/).pop() ?? '';
  return base === PROJECT_FILE_NAME;
}
