// A hand-built index shaped like a two-layer Llama as the export helper records it: every
// module object with its type, bases (mro), the root's model_type and output head, and the
// weights' shapes. One module is a NonDynamicallyQuantizableLinear (a Linear by its bases).
#pragma once

#include "opscope/index/index.h"

#include <string>
#include <vector>

namespace opscope::dialects::peft::testing {

inline const std::string kLinear = "torch.nn.modules.linear.Linear";

inline index::Index tiny_llama() {
  index::Index index;
  index::Module root;
  root.type = "transformers.models.llama.modeling_llama.LlamaForCausalLM";
  index.modules.push_back(root);
  auto object = [&](std::string name, std::string type, std::vector<std::int64_t> weight = {},
                    std::vector<std::string> mro = {}) {
    index::ModuleObject o;
    o.name = name;
    o.type = std::move(type);
    o.mro = std::move(mro);
    index.module_objects.push_back(o);
    if (!weight.empty()) {
      index::Parameter p;
      p.name = name + ".weight";
      p.shape = std::move(weight);
      p.dtype = "float32";
      index.parameters.push_back(p);
    }
  };
  object("", root.type, {}, {"transformers.modeling_utils.PreTrainedModel"});
  index.module_objects.front().model_type = "llama";
  object("model", "transformers.models.llama.modeling_llama.LlamaModel");
  object("model.embed_tokens", "torch.nn.modules.sparse.Embedding", {128, 32});
  object("model.layers", "torch.nn.modules.container.ModuleList");
  for (std::string layer : {"0", "1"}) {
    std::string at = "model.layers." + layer;
    object(at, "transformers.models.llama.modeling_llama.LlamaDecoderLayer");
    object(at + ".self_attn", "transformers.models.llama.modeling_llama.LlamaAttention");
    object(at + ".self_attn.q_proj", kLinear, {32, 32});
    object(at + ".self_attn.v_proj", kLinear, {16, 32});
    object(at + ".self_attn.out_proj", "torch.nn.modules.linear.NonDynamicallyQuantizableLinear",
           {32, 32}, {kLinear});
    object(at + ".mlp", "transformers.models.llama.modeling_llama.LlamaMLP");
    object(at + ".mlp.down_proj", kLinear, {32, 64});
    object(at + ".input_layernorm", "transformers.models.llama.modeling_llama.LlamaRMSNorm", {32});
  }
  object("model.norm", "transformers.models.llama.modeling_llama.LlamaRMSNorm", {32});
  object("lm_head", kLinear, {128, 32});
  index.module_objects.back().output_embeddings = true;
  index.rebuild_lookups();
  return index;
}

} // namespace opscope::dialects::peft::testing
