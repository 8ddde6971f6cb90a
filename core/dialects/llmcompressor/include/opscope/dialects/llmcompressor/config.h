// An llm-compressor modifier as its pydantic model holds it, read from where users write one:
// a recipe YAML (`<stage>_stage: <group>_modifiers: <Modifier>: {...}`; the flat
// `<Modifier>: {...}` form too, marked as not applied), the modifier calls of a Python script
// (`GPTQModifier(...)` passed to oneshot), and a compressed-tensors checkpoint's config.json
// `quantization_config`. Every string keeps where it is written, for messages, hover and
// completion.
#pragma once

#include "opscope/config/positions.h"
#include "opscope/dialects/written.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opscope::dialects::llmcompressor {

using dialects::Written;

enum class Source { RecipeYaml, PythonCall, CheckpointJson };

// compressed-tensors' QuantizationArgs as written; unset fields keep its defaults
// (quant_args.py: 8 bits, int, symmetric, static; the strategy inferred from group_size).
struct QuantArgs {
  int num_bits = 8;
  std::string type = "int";            // "int" | "float"
  std::optional<std::string> strategy; // "tensor", "channel", "group", "block", "token", ...
  std::optional<long long> group_size;
  bool symmetric = true;
  std::string dynamic = "false"; // "false" | "true" | "local"
  bool block_structure = false;  // block_structure written (not None)
  std::vector<long long> block;  // its values ([rows, cols]), when a list of integers
  std::string scale_dtype;       // written ("torch.uint8" or "uint8"), empty when None
  bool actorder = false;         // actorder written (not None / False)
  config::Range range;
};

// A QuantizationScheme's arguments (its targets are kept apart, with their ranges).
struct SchemeArgs {
  std::optional<QuantArgs> weights, input_activations, output_activations;
};

// One `config_groups` entry.
struct ConfigGroup {
  Written name;                 // "group_0"
  std::vector<Written> targets; // a lone string is a one-item list
  SchemeArgs args;
  std::optional<Written> format; // the group's compression format (a checkpoint writes it)
  config::Range range;
};

// One SmoothQuant / AWQ mapping: `[[balance layers], smooth layer]` or
// `{smooth_layer: ..., balance_layers: [...]}`.
struct Mapping {
  std::vector<Written> balance;
  std::optional<Written> smooth;
  config::Range range;
};

struct Modifier {
  Source source = Source::RecipeYaml;
  // QuantizationModifier, GPTQModifier, AWQModifier, SmoothQuantModifier, SparseGPTModifier;
  // "quantization_config" for a checkpoint's config.json.
  std::string class_name;
  std::string stage; // the recipe stage it sits in ("quant_stage"), empty in flat form
  // Does llm-compressor read it? 0.14 reads a recipe's modifiers only under
  // `<x>_stage: <y>_modifiers:`; one written elsewhere is never applied, silently.
  bool applied = true;
  config::Range anchor; // the modifier's key / call / quantization_config key
  std::vector<Written> targets;
  bool targets_set = false; // written (else llm-compressor's default ["Linear"])
  std::vector<Written> ignore;
  // scheme: a preset name ("W4A16"), or a map of preset names to targets ({W8A8: [Linear]}).
  std::optional<Written> scheme;
  std::vector<std::pair<Written, std::vector<Written>>> scheme_targets;
  std::vector<ConfigGroup> config_groups;
  bool config_groups_set = false;
  std::vector<Mapping> mappings;
  std::optional<Written> format; // checkpoint: quantization_config.format
  bool bypass_divisibility_checks = false;
  // kv_cache_scheme written (not None): a config of its own (has_config). The attention
  // schemes it sets up are not resolved.
  bool kv_cache_scheme = false;
  std::vector<Written> fields; // every key written, for pydantic's extra='forbid'
  // Values opscope cannot read (a variable, **kwargs, a value of the wrong shape): said, not
  // guessed.
  std::vector<config::Range> unreadable;
};

// The modifiers of one file, in source order. Never throws; a half-typed file yields what can
// be read. JSON with `quantization_config` (or config.json) is a checkpoint; YAML holds the
// modifiers at any of the recipe's levels; Python holds modifier calls. `problems`, when given:
// where the text would not load (PyYAML, json), or was read in part.
std::vector<Modifier>
read_llmcompressor_configs(const std::string& path, const std::string& text,
                           std::vector<config::SyntaxProblem>* problems = nullptr);
bool looks_like_llmcompressor(const std::string& path, const std::string& text);

// The modifier classes read (llmcompressor.modifiers).
const std::vector<std::string>& modifier_classes();
// Does the class quantize (a QuantizationMixin: targets, scheme, config_groups)? In
// llm-compressor 0.14 AWQModifier is a transform: mappings only.
bool quantizes(const std::string& class_name);
// The fields the modifier class accepts (its pydantic model forbids any other); empty for a
// checkpoint's quantization_config, which is not checked.
const std::vector<std::string>& modifier_fields(const std::string& class_name);

} // namespace opscope::dialects::llmcompressor
