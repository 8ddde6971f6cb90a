// The model as llm-compressor's oneshot sees it: before it initializes any modifier, oneshot
// calls linearize_moe (llmcompressor/modeling/moe/linearize.py of llm-compressor 0.14), which
// replaces every fused MoE experts module (3-D `gate_up_proj` / `up_proj` and `down_proj`
// parameters) by a LinearExperts2D: a ModuleList of one ExpertMLP per expert, each holding
// `gate_proj`, `up_proj` and `down_proj` Linear layers, and the activation `act_fn`. Recipes
// that target `Linear` (or `re:.*experts.*`) then quantize every expert, and the checkpoint is
// saved with the per-expert names. PEFT does not do this: only this dialect sees the view.
#pragma once

#include "opscope/index/index.h"

#include <string>
#include <vector>

namespace opscope::dialects::llmcompressor {

// One class linearize_moe splits: transformers' `@use_experts_implementation` classes (the
// FusedExpertsProtocol, with the decorator's is_transposed / has_gate) and the classes
// LinearExperts2D registers (GptOssExperts, Llama4TextExperts) with their own replacements.
struct LinearizedClass {
  std::string fused;         // fully-qualified transformers class
  bool transposed = false;   // gate_up_proj is [experts, hidden, 2 * intermediate]
  bool gated = true;         // gate_up_proj (gate_proj + up_proj), else up_proj alone
  std::string experts_class; // what replaces it: "llmcompressor...LinearExperts2D"
  std::string expert_class;  // each expert: "llmcompressor...ExpertMLPWithGate"
};
const std::vector<LinearizedClass>& linearized_classes();

// `model` with every fused experts module of a class above replaced as linearize_moe replaces
// it: names, classes (with their MRO) and per-expert parameters (shapes from the fused ones,
// same dtype). Others are kept as they are (see fused_experts_left). Returns `model` itself,
// copied, when it has none.
index::Index linearize_moe(const index::Index& model);
// Whether linearize_moe(model) would change anything (cheap: the parameters' names).
bool has_linearizable_experts(const index::Index& model);

// The fused experts modules (3-D `down_proj` beside a 3-D `gate_up_proj` or `up_proj`) of a
// class linearize_moe does not split (not decorated with use_experts_implementation, nor
// registered): llm-compressor leaves them 3-D, where no target quantizes them. Their names.
std::vector<std::string> fused_experts_left(const index::Index& model);

} // namespace opscope::dialects::llmcompressor
