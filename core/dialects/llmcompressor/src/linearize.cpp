#include "opscope/dialects/llmcompressor/linearize.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace opscope::dialects::llmcompressor {
namespace {

using index::ModuleObject;
using index::Parameter;

constexpr std::string_view kMoe = "llmcompressor.modeling.moe.";

// A class the installed transformers decorates with @use_experts_implementation (the export
// recorded its arguments): split into the generic LinearExperts2D.
LinearizedClass decorated(const ModuleObject& object) {
  const ModuleObject::ExpertsImplementation& args = *object.experts_implementation;
  return {object.type, args.transposed, args.gated,
          std::string(kMoe) + "linear_experts.LinearExperts2D",
          std::string(kMoe) + "linear_experts." +
              (args.gated ? "ExpertMLPWithGate" : "ExpertMLPWithoutGate")};
}

ModuleObject object(std::string name, std::string type) {
  ModuleObject m;
  m.name = std::move(name);
  m.type = std::move(type);
  return m;
}

std::string join(const std::string& parent, std::string_view leaf) {
  return parent.empty() ? std::string(leaf) : parent + "." + std::string(leaf);
}

// The module's own parameter `leaf` when it is 3-D (a fused experts tensor).
const Parameter* fused_tensor(const index::Index& model, const std::string& module,
                              std::string_view leaf) {
  const Parameter* p = model.find_parameter(join(module, leaf));
  return p && !p->buffer && p->shape.size() == 3 ? p : nullptr;
}

// A FusedExpertsProtocol module: a 3-D `down_proj` and a 3-D `gate_up_proj` or `up_proj`.
bool fused_shaped(const index::Index& model, const std::string& module) {
  return fused_tensor(model, module, "down_proj") &&
         (fused_tensor(model, module, "gate_up_proj") || fused_tensor(model, module, "up_proj"));
}

// How linearize_moe splits `object`'s class (LinearExperts2D.get_linear_experts_cls): its
// registry first, then the decorator's arguments; nothing for any other class.
std::optional<LinearizedClass> linearized_class(const ModuleObject& object) {
  for (const LinearizedClass& c : linearized_classes())
    if (object.type == c.fused)
      return c;
  if (object.experts_implementation)
    return decorated(object);
  return std::nullopt;
}

// An experts module's sizes, read from its fused parameters: non-transposed, gate_up_proj is
// [E, 2I, H] (up_proj [E, I, H]) and down_proj [E, H, I]; transposed, [E, H, 2I] and [E, I, H].
// ExpertMLP's Linear layers are then [I, H] (gate, up) and [H, I] (down). Empty when the
// shapes do not fit together (no model transformers builds).
struct Sizes {
  std::int64_t experts = 0, hidden = 0, inter = 0;
};
std::optional<Sizes> sizes_of(const index::Index& model, const std::string& module,
                              const LinearizedClass& c) {
  const Parameter* down = fused_tensor(model, module, "down_proj");
  const Parameter* up = fused_tensor(model, module, c.gated ? "gate_up_proj" : "up_proj");
  if (!down || !up)
    return std::nullopt;
  Sizes s;
  s.experts = down->shape[0];
  s.hidden = c.transposed ? up->shape[1] : up->shape[2];
  std::int64_t both = c.transposed ? up->shape[2] : up->shape[1];
  s.inter = both / (c.gated ? 2 : 1);
  std::vector<std::int64_t> down_shape = {s.experts, c.transposed ? s.inter : s.hidden,
                                          c.transposed ? s.hidden : s.inter};
  if (s.experts <= 0 || s.hidden <= 0 || s.inter <= 0 || (c.gated && both % 2 != 0) ||
      up->shape[0] != s.experts || down->shape != down_shape)
    return std::nullopt;
  return s;
}

// Modules one experts module becomes: LinearExperts2D, act_fn, and per expert an ExpertMLP
// with its two or three Linear layers.
std::int64_t modules_made(const Sizes& s, const LinearizedClass& c) {
  return 2 + s.experts * (c.gated ? 4 : 3);
}

// The modules linearize_moe replaces: get_non_linearized_moes (the protocol's parameters, a
// class it knows), with their class, while the view stays within kMaxLinearizedModules.
std::vector<std::pair<int, LinearizedClass>> linearizable(const index::Index& model) {
  std::vector<std::pair<int, LinearizedClass>> found;
  std::int64_t made = 0;
  const auto& objects = model.named_modules();
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (std::optional<LinearizedClass> c = linearized_class(objects[i])) {
      std::optional<Sizes> s = sizes_of(model, objects[i].name, *c);
      if (!s || (made += modules_made(*s, *c)) > kMaxLinearizedModules)
        continue;
      found.emplace_back(static_cast<int>(i), std::move(*c));
    }
  return found;
}

// One experts module's replacement, from its fused parameters' shapes: the modules in
// named_modules() order (LinearExperts2D, then each expert and its Linear layers in
// registration order, then act_fn) and the parameters in named_parameters() order.
struct Replacement {
  std::vector<ModuleObject> modules;
  std::vector<Parameter> parameters;
};

Replacement replace(const index::Index& model, const ModuleObject& fused,
                    const LinearizedClass& c) {
  const Parameter* down = fused_tensor(model, fused.name, "down_proj");
  Sizes s = *sizes_of(model, fused.name, c);
  std::int64_t experts = s.experts, hidden = s.hidden, inter = s.inter;
  bool bias =
      model.find_parameter(join(fused.name, c.gated ? "gate_up_proj_bias" : "up_proj_bias")) &&
      model.find_parameter(join(fused.name, "down_proj_bias"));

  // Children are written as positions in `modules` (made absolute where it is inserted).
  Replacement r;
  ModuleObject list = object(fused.name, c.experts_class);
  list.mro = {std::string(kMoe) + "linear_experts.LinearExperts2D",
              "torch.nn.modules.container.ModuleList"};
  r.modules.push_back(list);
  std::vector<std::string_view> linears = {"up_proj", "down_proj"};
  if (c.gated)
    linears.insert(linears.begin() + 1, "gate_proj");
  for (std::int64_t e = 0; e < experts; ++e) {
    ModuleObject expert = object(join(fused.name, std::to_string(e)), c.expert_class);
    if (c.expert_class.ends_with("GptOssExpertMLP"))
      expert.mro.push_back(std::string(kMoe) + "linear_experts.ExpertMLPWithGate");
    expert.mro.push_back(std::string(kMoe) + "linear_experts.ExpertMLP");
    std::size_t at = r.modules.size();
    r.modules.front().children.push_back(static_cast<int>(at));
    r.modules.push_back(expert);
    for (std::string_view leaf : linears) {
      std::string name = join(expert.name, leaf);
      r.modules[at].children.push_back(static_cast<int>(r.modules.size()));
      r.modules.push_back(object(name, "torch.nn.modules.linear.Linear"));
      bool is_down = leaf == "down_proj";
      std::int64_t rows = is_down ? hidden : inter, cols = is_down ? inter : hidden;
      r.parameters.push_back({join(name, "weight"), {}, {rows, cols}, down->dtype});
      if (bias)
        r.parameters.push_back({join(name, "bias"), {}, {rows}, down->dtype});
    }
  }
  // LinearExperts2D's own ACT2FN[hidden_act]: the fused module's class, or what MoEConfig
  // forces where it has none (sigmoid for gpt_oss and its kin, else silu).
  ModuleObject act = object(join(fused.name, "act_fn"), "transformers.activations.SiLUActivation");
  if (int old = model.find_module_object(act.name); old >= 0) {
    act.type = model.named_modules()[static_cast<std::size_t>(old)].type;
    act.mro = model.named_modules()[static_cast<std::size_t>(old)].mro;
  } else if (c.fused.ends_with("GptOssExperts") ||
             c.fused.ends_with("OpenAIPrivacyFilterExperts")) {
    act.type = "torch.nn.modules.activation.Sigmoid";
  }
  r.modules.front().children.push_back(static_cast<int>(r.modules.size()));
  r.modules.push_back(act);
  return r;
}

} // namespace

const std::vector<LinearizedClass>& linearized_classes() {
  static const std::vector<LinearizedClass> classes = [] {
    // LinearExperts2D's registry (gpt_oss.py, llama4.py): its own replacements, which win
    // over the decorator.
    std::vector<LinearizedClass> c;
    std::string moe(kMoe);
    c.push_back({"transformers.models.gpt_oss.modeling_gpt_oss.GptOssExperts", true, true,
                 moe + "gpt_oss.GptOssLinearExperts", moe + "gpt_oss.GptOssExpertMLP"});
    c.push_back({"transformers.models.llama4.modeling_llama4.Llama4TextExperts", true, true,
                 moe + "llama4.Llama4LinearExperts", moe + "linear_experts.ExpertMLPWithGate"});
    return c;
  }();
  return classes;
}

namespace {

// The fused experts modules (FusedExpertsProtocol's parameters) in parameter order, found from
// the 3-D `down_proj` parameters: cheap on a model of thousands of modules.
template <class Each> void each_fused(const index::Index& model, Each each) {
  for (const Parameter& p : model.parameters)
    if (p.shape.size() == 3 && !p.buffer &&
        (p.name == "down_proj" || p.name.ends_with(".down_proj"))) {
      std::string owner = index::owner_module_name(p.name);
      int at = model.find_module_object(owner);
      if (at >= 0 && fused_shaped(model, owner))
        each(model.named_modules()[static_cast<std::size_t>(at)]);
    }
}

} // namespace

bool has_linearizable_experts(const index::Index& model) {
  bool found = false;
  each_fused(model,
             [&](const ModuleObject& m) { found = found || linearized_class(m).has_value(); });
  return found;
}

std::vector<std::string> fused_experts_left(const index::Index& model) {
  std::vector<std::string> left;
  each_fused(model, [&](const ModuleObject& m) { left.push_back(m.name); });
  return left;
}

std::string fused_experts_caveat(const index::Index& view) {
  std::vector<std::string> left = fused_experts_left(view);
  if (left.empty())
    return "";
  std::size_t split = 0; // of a class oneshot splits: past the bound, or of odd shapes
  each_fused(view, [&](const ModuleObject& m) { split += linearized_class(m).has_value(); });
  std::string which = std::to_string(left.size()) + " fused MoE experts module" +
                      (left.size() == 1 ? "" : "s") + " (" + left.front() +
                      (left.size() > 1 ? ", ..." : "") + ")";
  if (split > 0)
    return which +
           " counted unquantized: oneshot splits them into per-expert Linear layers, "
           "which opscope models up to " +
           std::to_string(kMaxLinearizedModules) + " modules (or their shapes do not fit)";
  return which + " kept as 3-D parameters, saved unquantized: llm-compressor's linearize_moe "
                 "splits only transformers' @use_experts_implementation classes and those it "
                 "registers (GptOssExperts, Llama4TextExperts)";
}

index::Index linearize_moe(const index::Index& model) {
  index::Index view = model;
  std::vector<std::pair<int, LinearizedClass>> found = linearizable(model);
  if (found.empty())
    return view;
  const auto& objects = model.named_modules();
  std::unordered_map<int, Replacement> replaced;
  for (const auto& [i, c] : found)
    replaced.emplace(i, replace(model, objects[static_cast<std::size_t>(i)], c));

  // The modules: each replaced one's subtree gives way to its replacement.
  std::vector<ModuleObject> modules;
  std::vector<int> moved(objects.size(), -1); // old index -> new, -1 when gone
  std::vector<bool> fresh;                    // children already new positions
  std::string inside;                         // the subtree being dropped
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (!inside.empty() && objects[i].name.starts_with(inside))
      continue;
    inside.clear();
    auto r = replaced.find(static_cast<int>(i));
    moved[i] = static_cast<int>(modules.size());
    if (r == replaced.end()) {
      modules.push_back(objects[i]);
      fresh.push_back(false);
      continue;
    }
    inside = objects[i].name + ".";
    int offset = static_cast<int>(modules.size());
    for (ModuleObject m : r->second.modules) {
      for (int& child : m.children)
        child += offset;
      modules.push_back(std::move(m));
      fresh.push_back(true);
    }
  }
  for (std::size_t k = 0; k < modules.size(); ++k) {
    if (fresh[k])
      continue;
    std::vector<int> children;
    for (int child : modules[k].children)
      if (child >= 0 && static_cast<std::size_t>(child) < moved.size() &&
          moved[static_cast<std::size_t>(child)] >= 0)
        children.push_back(moved[static_cast<std::size_t>(child)]);
    modules[k].children = std::move(children);
  }

  // The parameters: the fused ones give way to the per-expert ones, where the first stood.
  std::unordered_map<std::string, const Replacement*> by_name;
  for (const auto& [i, r] : replaced)
    by_name.emplace(objects[static_cast<std::size_t>(i)].name, &r);
  std::vector<const Replacement*> written;
  std::vector<Parameter> parameters;
  for (const Parameter& p : model.parameters) {
    const Replacement* r = nullptr;
    for (std::string owner = index::owner_module_name(p.name); !r;) {
      auto it = by_name.find(owner);
      if (it != by_name.end())
        r = it->second;
      if (owner.empty())
        break;
      owner = index::owner_module_name(owner);
    }
    if (!r) {
      parameters.push_back(p);
    } else if (std::find(written.begin(), written.end(), r) == written.end()) {
      written.push_back(r);
      parameters.insert(parameters.end(), r->parameters.begin(), r->parameters.end());
    }
  }
  view.module_objects = std::move(modules);
  view.parameters = std::move(parameters);
  view.rebuild_lookups();
  return view;
}

} // namespace opscope::dialects::llmcompressor
