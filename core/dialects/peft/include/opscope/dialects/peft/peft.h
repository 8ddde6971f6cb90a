// The PEFT dialect: everything opscope knows about PEFT's configs (LoraConfig and the tuner
// configs sharing its fields, adapter_config.json, axolotl and LLaMA-Factory YAML), in one
// folder. The engine (workspace, features, LSP, check, explain) asks it through dialect.h and
// knows no PEFT rule itself. Matching is PEFT's own (peft/tuners/tuners_utils.py
// check_target_module_exists, peft/utils/other.py), over the model's named_modules().
// No LibTorch, no LSP types: positions are config::Range (0-based lines, byte columns).
//   config.h    reading: read_peft_configs, looks_like_peft
//   resolve.h   matching: resolve (wrapped modules, ranks, alphas, trainable counts, errors)
//   features.h  diagnose, hover, complete
//   dialect.h   all of it behind the engine's Dialect interface (and `explain`)
#pragma once

#include "opscope/dialects/peft/config.h"
#include "opscope/dialects/peft/features.h"
#include "opscope/dialects/peft/resolve.h"
