// A hand-built index shaped like Gemma 3's conditional-generation model as transformers 5
// names it: the text decoder under model.language_model, the head at the root (lm_head) and
// an embedding, one layer with attention and MLP, a vision tower with its own attention.
#pragma once

#include "tiny_llama.h"

namespace opscope::dialects::llmcompressor::testing {

using peft::testing::kLinear;
using peft::testing::tiny_llama;

inline index::Index tiny_gemma3() {
  index::Index index;
  index::Module root;
  root.type = "transformers.models.gemma3.modeling_gemma3.Gemma3ForConditionalGeneration";
  index.modules.push_back(root);
  auto object = [&](std::string name, std::string type, std::vector<std::int64_t> weight = {}) {
    index::ModuleObject o;
    o.name = name;
    o.type = std::move(type);
    index.module_objects.push_back(o);
    if (!weight.empty()) {
      index::Parameter p;
      p.name = name + ".weight";
      p.shape = std::move(weight);
      p.dtype = "float32";
      index.parameters.push_back(p);
    }
  };
  const std::string g = "transformers.models.gemma3.modeling_gemma3.";
  object("", root.type);
  object("model", g + "Gemma3Model");
  object("model.language_model", g + "Gemma3TextModel");
  object("model.language_model.embed_tokens", g + "Gemma3TextScaledWordEmbedding", {128, 32});
  index.module_objects.back().mro = {"torch.nn.modules.sparse.Embedding"};
  object("model.language_model.layers", "torch.nn.modules.container.ModuleList");
  object("model.language_model.layers.0", g + "Gemma3DecoderLayer");
  object("model.language_model.layers.0.self_attn", g + "Gemma3Attention");
  for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"})
    object(std::string("model.language_model.layers.0.self_attn.") + p, kLinear, {32, 32});
  object("model.language_model.layers.0.input_layernorm", g + "Gemma3RMSNorm", {32});
  object("model.language_model.layers.0.mlp", g + "Gemma3MLP");
  object("model.language_model.layers.0.mlp.gate_proj", kLinear, {64, 32});
  object("model.language_model.layers.0.mlp.down_proj", kLinear, {32, 64});
  object("model.vision_tower", "transformers.models.siglip.modeling_siglip.SiglipVisionModel");
  object("model.vision_tower.attn", "transformers.models.siglip.modeling_siglip.SiglipAttention");
  object("model.vision_tower.attn.k_proj", kLinear, {32, 48});
  object("model.vision_tower.attn.v_proj", kLinear, {32, 48});
  object("lm_head", kLinear, {128, 32});
  index.module_objects.back().output_embeddings = true;
  index.rebuild_lookups();
  return index;
}

} // namespace opscope::dialects::llmcompressor::testing
