// What PEFT does with one config on one model, by PEFT's own rules (peft 0.21.2:
// tuners/tuners_utils.py check_target_module_exists, _maybe_include_all_linear_layers,
// BaseTuner.inject_adapter; utils/other.py get_pattern_key, _set_trainable; tuners/lora
// model.py and layer.py dispatch_default), over the model's named_modules().
#pragma once

#include "opscope/dialects/peft/config.h"
#include "opscope/index/index.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::peft {

// One module the adapter wraps.
struct Wrapped {
  int module = -1;       // index into index::Index::named_modules()
  int target_entry = -1; // index into target_names; -1: target_regex, all_linear or the default
  int rank = 8;          // after rank_pattern
  double alpha = 8;      // after alpha_pattern
  int rank_key = -1;     // the rank_pattern entry that set it, -1: r
  int alpha_key = -1;    // the alpha_pattern entry that set it, -1: lora_alpha
  // The adapter's parameters on this module (LoRA and AdaLoRA-free tuners: see
  // Resolution::counted); 0 when the module's type or shapes are unknown.
  std::int64_t trainable_parameters = 0;
};

struct Resolution {
  std::vector<Wrapped> wrapped; // in named_modules() order
  std::vector<int> saved;       // modules_to_save: modules copied and trained in full
  // Per target_names / exclude_names / rank_pattern / alpha_pattern / modules_to_save entry:
  // the modules it matched (named_modules() indices), for hover and no-match. A target entry
  // lists what its name matches before exclusions and layer selection; rank and alpha keys
  // list the wrapped modules they match.
  std::vector<std::vector<int>> target_matches, exclude_matches, rank_matches, alpha_matches,
      saved_matches;
  std::vector<int> regex_matches;  // target_regex / all_linear / the default: modules matched
  std::vector<int> all_linear_set; // what all-linear expands to (empty unless used)
  // target_modules unset: the names PEFT's table gives this architecture (empty: none).
  std::vector<std::string> default_targets;
  std::optional<std::string> default_regex; // or its regex (gemma4)
  // Parameters target_parameters wraps ("model.layers.0.mlp.experts.gate_up_proj").
  std::vector<std::string> wrapped_parameters;
  // print_trainable_parameters()'s "trainable params" and "all params" (LoRA: exact; other
  // tuners: the LoRA figure is not theirs, so `counted` is false).
  std::int64_t trainable_parameters = 0;
  std::int64_t all_parameters = 0;
  bool counted = false;
  // Set when get_peft_model would raise, with PEFT's reason (no module matched, a type LoRA
  // cannot wrap, ...), and the written value it is about (else the config's anchor).
  std::optional<std::string> error;
  std::optional<config::Range> error_range;
  std::string error_code; // "no-match", "unsupported-module", "all-excluded", "no-target", ...
};

Resolution resolve(const PeftConfig& config, const index::Index& model);

} // namespace opscope::dialects::peft
