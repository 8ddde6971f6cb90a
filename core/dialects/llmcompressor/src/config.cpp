// Reading llm-compressor configs: where each source keeps its modifiers (fields.cpp reads a
// modifier's values, whatever the source).
#include "opscope/dialects/llmcompressor/config.h"

#include "fields.h"

#include "opscope/config/python_calls.h"
#include "opscope/config/scalar_values.h"
#include "opscope/config/tree.h"
#include "opscope/dialects/text_search.h"

#include <algorithm>

namespace opscope::dialects::llmcompressor {
namespace {

using config::Node;

std::string_view file_name(std::string_view path) {
  auto slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_modifier(std::string_view key) {
  const auto& c = modifier_classes();
  return std::find(c.begin(), c.end(), key) != c.end();
}

// A recipe: modifiers under a stage's modifier group (`quant_stage: quant_modifiers:
// GPTQModifier: {...}`), the only place llm-compressor 0.14 reads them (Recipe.from_dict: a root
// key ending in `_stage`, then a key ending in `_modifiers`, both maps). Modifiers elsewhere (at
// the root, right under a stage, under a root group) are read too, but marked as not applied:
// llm-compressor skips them without a word. Recipes nest no deeper.
void read_recipe_level(const Node& map, const std::string& stage, int depth, bool in_group,
                       std::vector<Modifier>& out) {
  for (const config::Entry& e : map.entries) {
    const Node* value = config::follow_aliases(e.value.get());
    if (is_modifier(e.key)) {
      Modifier m;
      m.source = Source::RecipeYaml;
      m.class_name = e.key;
      m.stage = stage;
      m.anchor = e.key_range;
      m.applied = depth == 2 && in_group;
      if (value && value->kind == Node::Kind::Map)
        detail::read_modifier(*value, m);
      else if (value && value->kind != Node::Kind::Null)
        m.unreadable.push_back(value->range);
      out.push_back(std::move(m));
    } else if (value && value->kind == Node::Kind::Map && depth < 2) {
      bool stage_key = depth == 0 && e.key.ends_with("_stage");
      bool group_key = depth == 1 && in_group && e.key.ends_with("_modifiers");
      read_recipe_level(*value, depth == 0 ? e.key : stage, depth + 1,
                        depth == 0 ? stage_key : group_key, out);
    }
  }
}

std::vector<Modifier> read_document(const std::string& path, const std::string& text,
                                    std::vector<config::SyntaxProblem>* problems) {
  bool json = config::guess_format(path, text) == config::Format::Json;
  config::Tree tree = config::scan_tree(text, json ? config::Format::Json : config::Format::Yaml);
  if (problems)
    *problems = std::move(tree.problems);
  const Node* root = tree.root && tree.root->kind == Node::Kind::Map ? tree.root.get() : nullptr;
  if (!root)
    return {};
  std::vector<Modifier> out;
  // A checkpoint: config.json's quantization_config (compressed-tensors' QuantizationConfig).
  for (const config::Entry& e : root->entries)
    if (e.key == "quantization_config" || e.key == "compression_config") {
      const Node* q = config::follow_aliases(e.value.get());
      if (!q || q->kind != Node::Kind::Map || !detail::find(*q, "config_groups"))
        continue;
      Modifier m;
      m.source = Source::CheckpointJson;
      m.class_name = "quantization_config";
      m.anchor = e.key_range;
      detail::read_checkpoint(*q, m);
      out.push_back(std::move(m));
      return out;
    }
  read_recipe_level(*root, "", 0, false, out);
  return out;
}

std::vector<Modifier> read_python(const std::string& text,
                                  std::vector<config::SyntaxProblem>* problems) {
  config::PythonCalls calls = config::read_python_calls(text, modifier_classes());
  if (problems)
    *problems = std::move(calls.problems);
  std::vector<Modifier> out;
  for (const config::PythonCall& call : calls.calls) {
    Modifier m;
    m.source = Source::PythonCall;
    m.class_name = call.function;
    m.anchor = call.function_range;
    detail::read_modifier(*call.arguments, m);
    out.push_back(std::move(m));
  }
  return out;
}

} // namespace

const std::vector<std::string>& modifier_classes() {
  static const std::vector<std::string> classes = {"QuantizationModifier", "GPTQModifier",
                                                   "AWQModifier", "SmoothQuantModifier",
                                                   "SparseGPTModifier"};
  return classes;
}

bool quantizes(const std::string& class_name) {
  return class_name == "QuantizationModifier" || class_name == "GPTQModifier" ||
         class_name == "quantization_config";
}

// llm-compressor 0.14's model_fields (private fields, ending in `_`, left out);
// tests/dialects/test_llmcompressor_judge.py compares them with the installed classes.
const std::vector<std::string>& modifier_fields(const std::string& class_name) {
  static const std::vector<std::string> none;
  static const std::vector<std::pair<std::string, std::vector<std::string>>> fields = [] {
    std::vector<std::string> base = {
        "requires_calibration_data", "index", "group", "start", "end", "update"};
    std::vector<std::string> mixin = {"config_groups",   "targets",
                                      "ignore",          "scheme",
                                      "kv_cache_scheme", "weight_observer",
                                      "input_observer",  "output_observer",
                                      "observer",        "bypass_divisibility_checks"};
    auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    std::vector<std::pair<std::string, std::vector<std::string>>> t;
    t.emplace_back("QuantizationModifier", with(mixin, base));
    t.emplace_back("GPTQModifier", with(with(mixin, base), {"block_size", "dampening_frac",
                                                            "actorder", "batched_quantization"}));
    t.emplace_back("AWQModifier",
                   with(base, {"mappings", "offload_device", "duo_scaling", "n_grid"}));
    t.emplace_back("SmoothQuantModifier",
                   with(base, {"smoothing_strength", "mappings", "ignore", "num_calibration_steps",
                               "calibration_function", "algorithm"}));
    t.emplace_back("SparseGPTModifier",
                   with(base, {"sparsity", "sparsity_profile", "mask_structure", "owl_m",
                               "owl_lmbda", "sequential_update", "targets", "ignore", "block_size",
                               "dampening_frac", "preserve_sparsity_mask", "offload_hessians"}));
    return t;
  }();
  for (const auto& [name, f] : fields)
    if (name == class_name)
      return f;
  return none;
}

std::vector<Modifier> read_llmcompressor_configs(const std::string& path, const std::string& text,
                                                 std::vector<config::SyntaxProblem>* problems) {
  try {
    if (config::guess_format(path, text) == config::Format::Python)
      return read_python(text, problems);
    return read_document(path, text, problems);
  } catch (const std::exception&) { // never throws: an unreadable file holds no config
    return {};
  }
}

bool looks_like_llmcompressor(const std::string& path, const std::string& text) {
  bool named = mentions(text, "quantization_config") || mentions(text, "compression_config") ||
               file_name(path) == "config.json";
  for (const std::string& c : modifier_classes())
    named = named || mentions(text, c);
  return named && !read_llmcompressor_configs(path, text).empty();
}

} // namespace opscope::dialects::llmcompressor
