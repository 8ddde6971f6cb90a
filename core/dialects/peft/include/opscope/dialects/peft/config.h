// A PEFT config as PEFT's dataclass holds it, read from where users write one: the tuner
// config calls of a Python script (LoraConfig, LoHaConfig, ...), a saved adapter_config.json,
// and the YAML of the frameworks that pass these fields to PEFT (axolotl, LLaMA-Factory).
// Every string keeps where it is written, for messages, hover and completion.
#pragma once

#include "opscope/config/positions.h"
#include "opscope/dialects/written.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opscope::dialects::peft {

using dialects::Written;

// Where the config came from: decides the field names shown in messages.
enum class Source { PythonCall, AdapterJson, Axolotl, LlamaFactory };

// One PEFT config as PEFT's dataclass would hold it (the frameworks' YAML keys mapped onto
// LoraConfig's fields), with the ranges of everything written.
struct PeftConfig {
  Source source = Source::PythonCall;
  std::string class_name = "LoraConfig"; // LoraConfig, LoHaConfig, IA3Config, ...
  config::Range anchor;                  // the call / root: where config-level messages go
  config::Range call;                    // Python: the whole call, its parentheses included
  // target_modules: a string is a regex (re.fullmatch); a list holds names (exact or
  // dot-suffix); "all-linear" (any case) is its own case. Unset: PEFT uses the architecture's
  // default (resolve() looks it up by the model's Hugging Face model_type).
  std::optional<Written> target_regex;
  std::vector<Written> target_names;
  bool target_modules_set = false;   // written, and not None
  std::optional<Written> all_linear; // the "all-linear" string as written
  std::optional<Written> exclude_regex;
  std::vector<Written> exclude_names;
  std::vector<std::pair<int, config::Range>> layers_to_transform; // an int is a one-item list
  std::vector<Written> layers_pattern;                            // a string is a one-item list
  int r = 8;
  double lora_alpha = 8;
  std::vector<std::pair<Written, int>> rank_pattern;     // key (regex), rank
  std::vector<std::pair<Written, double>> alpha_pattern; // key (regex), alpha
  std::vector<Written> modules_to_save;
  std::vector<Written> target_parameters;
  std::optional<Written> task_type;  // "SEQ_CLS" changes what all-linear leaves out
  bool use_dora = false;             // DoRA adds a magnitude vector per wrapped module
  std::optional<Written> base_model; // a Hugging Face id or a local path
  // Values written that opscope cannot read (a variable, **kwargs): said, not guessed.
  std::vector<config::Range> unreadable;
  // Every key written as one of the class's own fields (a call's keywords, adapter_config.json's
  // keys; not the frameworks' YAML keys), checked against the class's fields.
  std::vector<Written> keys;
};

// Is this file a PEFT config, and which ones does it hold? Never throws; a half-typed file
// yields what can be read. `path` decides adapter_config.json; YAML is axolotl when it has
// `lora_target_modules` / `lora_target_linear` / `adapter: lora|qlora`, LLaMA-Factory when it
// has `lora_target` / `finetuning_type: lora`; Python holds PEFT config class calls (a
// `from_pretrained("id")` in the same file names the base model when the call does not).
// `problems`, when given: where the text would not load (PyYAML, json), or was read in part.
std::vector<PeftConfig> read_peft_configs(const std::string& path, const std::string& text,
                                          std::vector<config::SyntaxProblem>* problems = nullptr);
bool looks_like_peft(const std::string& path, const std::string& text);

} // namespace opscope::dialects::peft
