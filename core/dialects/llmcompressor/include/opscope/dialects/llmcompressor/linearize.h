// The model as llm-compressor's oneshot sees it: before it initializes any modifier, oneshot
// calls linearize_moe (llmcompressor/modeling/moe/linearize.py of llm-compressor 0.14), which
// replaces every fused MoE experts module (3-D `gate_up_proj` / `up_proj` and `down_proj`
// parameters) by a LinearExperts2D: a ModuleList of one ExpertMLP per expert, each holding
// `gate_proj`, `up_proj` and `down_proj` Linear layers, and the activation `act_fn`. Recipes
// that target `Linear` (or `re:.*experts.*`) then quantize every expert, and the checkpoint is
// saved with the per-expert names. PEFT does not do this: only this dialect sees the view.
#pragma once

#include "opscope/index/index.h"

#include <cstdint>
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

// The most modules the view adds (LinearExperts2D, act_fn, each ExpertMLP and its Linear
// layers): DeepSeek-V3's 58 MoE layers of 256 experts add 59,508; an index whose shapes ask for
// more (a config with millions of experts exports on fake tensors) keeps the rest fused.
inline constexpr std::int64_t kMaxLinearizedModules = 1'000'000;

// `model` with every fused experts module of a class above replaced as linearize_moe replaces
// it: names, classes (with their MRO) and per-expert parameters (shapes from the fused ones,
// same dtype). Others are kept as they are (fused_experts_left). Returns `model` itself,
// copied, when it has none.
index::Index linearize_moe(const index::Index& model);
// Whether linearize_moe(model) would change anything (cheap: the parameters' names).
bool has_linearizable_experts(const index::Index& model);

// The fused experts modules (3-D `down_proj` beside a 3-D `gate_up_proj` or `up_proj`) still
// in `view`: of a class linearize_moe does not split (not decorated with
// use_experts_implementation, nor registered), which llm-compressor leaves 3-D where no target
// quantizes them; or past kMaxLinearizedModules. Their names.
std::vector<std::string> fused_experts_left(const index::Index& view);
// What the projected size of `view` leaves out, said (empty when nothing).
std::string fused_experts_caveat(const index::Index& view);

} // namespace opscope::dialects::llmcompressor
