// Decides whether a document is a config opscope should serve, without VS Code. Each library
// opscope knows (a dialect) contributes file names and text rules below: a file is served when
// its name is one of CONFIG_FILE_NAMES or one line of its text matches a rule of its language.
// Any other Python file is left to the Python extension alone.

export const PROJECT_FILE_NAME = 'opscope.yaml';

/** coreai-opt: the root keys of its YAML and JSON configs. */
// A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: root keys must equal the table's.
export const CONFIG_ROOT_KEYS = [
  'quantization_config',
  'kmeans_palettization_config',
  'magnitude_pruning_config',
] as const;

/** PEFT: the tuner configs that take `target_modules` (written in training scripts). */
export const PEFT_CONFIG_CLASSES = [
  'LoraConfig',
  'LoHaConfig',
  'LoKrConfig',
  'AdaLoraConfig',
  'IA3Config',
  'OFTConfig',
  'BOFTConfig',
  'VeraConfig',
] as const;

/** llm-compressor: the modifiers of its recipes (YAML keys at any level, or Python calls). */
export const LLMCOMPRESSOR_MODIFIERS = [
  'QuantizationModifier',
  'GPTQModifier',
  'AWQModifier',
  'SmoothQuantModifier',
  'SparseGPTModifier',
] as const;

/** Files served by their name alone: the project file, and the adapter config PEFT saves. */
export const CONFIG_FILE_NAMES = [PROJECT_FILE_NAME, 'adapter_config.json'] as const;

const rootKeys = CONFIG_ROOT_KEYS.join('|');
// On a line's code, not in its comment: a script that only mentions a config class in a comment
// is not a config.
const calledOrUsed = (classes: string) => new RegExp(`^[^#\\n]*\\b(?:${classes})[ \\t]*[.(]`, 'm');
const imports = (module: string) =>
  new RegExp(`^[ \\t]*(?:from[ \\t]+${module}(?:\\.[\\w.]*)?[ \\t]+import\\b|import[ \\t]+${module}\\b)`, 'm');

/** The text rules per language; YAML keys are root keys (column 0), optionally quoted. */
const TEXT_RULES: Record<'yaml' | 'json' | 'python', RegExp[]> = {
  yaml: [
    // coreai-opt
    new RegExp(`^["']?(?:${rootKeys})["']?[ \\t]*:`, 'm'),
    // PEFT through axolotl (lora_target_modules, lora_target_linear, adapter: lora | qlora) and
    // LLaMA-Factory (lora_target, finetuning_type: lora).
    /^["']?(?:lora_target_modules|lora_target_linear|lora_target)["']?[ \t]*:/m,
    /^["']?adapter["']?[ \t]*:[ \t]*["']?q?lora["']?[ \t]*(?:#.*)?$/m,
    /^["']?finetuning_type["']?[ \t]*:[ \t]*["']?lora["']?[ \t]*(?:#.*)?$/m,
    // llm-compressor recipes: a modifier key, at the root or under a stage and its group.
    new RegExp(`^[ \\t]*["']?(?:${LLMCOMPRESSOR_MODIFIERS.join('|')})["']?[ \\t]*:`, 'm'),
  ],
  // coreai-opt: the quoted key followed by a colon. Nesting is not checked: these configs are
  // small and the keys only ever appear at the root. (PEFT's JSON is adapter_config.json, by name;
  // a compressed-tensors checkpoint's config.json has quantization_config too.)
  json: [new RegExp(`"(?:${rootKeys})"\\s*:`)],
  python: [
    // coreai-opt: an import, or a config class called or used (`QuantizerConfig.from_dict`).
    // A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: config classes.
    imports('coreai_opt'),
    calledOrUsed('(?:Quantizer|KMeansPalettizer|MagnitudePruner)Config'),
    // PEFT: an import, or a tuner config called or used (`LoraConfig(`).
    imports('peft'),
    calledOrUsed(PEFT_CONFIG_CLASSES.join('|')),
    // llm-compressor: an import (oneshot scripts), or a modifier called.
    imports('llmcompressor'),
    calledOrUsed(LLMCOMPRESSOR_MODIFIERS.join('|')),
  ],
};

const LANGUAGE_RULES = new Map<string, RegExp[]>([
  ['yaml', TEXT_RULES.yaml],
  ['json', TEXT_RULES.json],
  ['jsonc', TEXT_RULES.json],
  ['python', TEXT_RULES.python],
]);

/** True when `text` in language `languageId` looks like a compression or fine-tuning config. */
export function looksLikeCompressionConfig(languageId: string, text: string): boolean {
  const rules = LANGUAGE_RULES.get(languageId);
  if (!rules) {
    return false;
  }
  // Only the head of huge documents is scanned: the root key (or the imports) come first in practice.
  const head = text.length > 200_000 ? text.slice(0, 200_000) : text;
  return rules.some((rule) => rule.test(head));
}

/** True for a file opscope serves by its name alone (opscope.yaml, adapter_config.json). */
export function isConfigFileName(fsPath: string): boolean {
  const base = fsPath.split(/[\\/]/).pop() ?? '';
  return (CONFIG_FILE_NAMES as readonly string[]).includes(base);
}
