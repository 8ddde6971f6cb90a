// Which open document the extension's commands (summary, reload, trust) are about, without VS
// Code: the server finds the model through that config, so it must be a config of the project
// the user is looking at, also when that config is a Python training script.
import { looksLikeCompressionConfig } from './configDetection';

/** What the choice needs of a VS Code TextDocument. */
export interface DocumentView {
  uri: string;
  scheme: string;
  languageId: string;
  text(): string;
}

const DATA_LANGUAGES = new Set(['yaml', 'json', 'jsonc']);

/**
 * True when a command may name `doc`: a YAML/JSON file on disk, or a Python file on disk that
 * holds a coreai-opt config (not every Python file: the server finds no model through a
 * script without a config, and those stay the Python extension's alone).
 */
export function isCommandTarget(doc: DocumentView | undefined): doc is DocumentView {
  if (!doc || doc.scheme !== 'file') {
    return false;
  }
  if (DATA_LANGUAGES.has(doc.languageId)) {
    return true;
  }
  return doc.languageId === 'python' && looksLikeCompressionConfig('python', doc.text());
}

/**
 * The URI a command names: the active editor's config, else the config last active (the
 * summary tab may be in front), else any open config; undefined when there is none (the server
 * then takes every open config).
 */
export function commandTarget(
  active: DocumentView | undefined,
  lastConfigUri: string | undefined,
  open: readonly DocumentView[],
): string | undefined {
  if (isCommandTarget(active)) {
    return active.uri;
  }
  if (lastConfigUri) {
    return lastConfigUri;
  }
  return open.find((d) => isCommandTarget(d) && looksLikeCompressionConfig(d.languageId, d.text()))?.uri;
}
