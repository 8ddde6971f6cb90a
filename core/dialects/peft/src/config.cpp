// Reading PEFT configs: each source's keys mapped onto LoraConfig's fields (fields.cpp reads
// the values, whatever the source).
#include "opscope/dialects/peft/config.h"

#include "fields.h"
#include "opscope/config/python_calls.h"
#include "opscope/config/tree.h"
#include "opscope/dialects/text_search.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace opscope::dialects::peft {
namespace {

using config::Node;

// PEFT's tuner config classes that share LoraConfig's target fields.
constexpr std::array<std::string_view, 8> kConfigClasses = {
    "LoraConfig", "LoHaConfig", "LoKrConfig", "AdaLoraConfig",
    "IA3Config",  "OFTConfig",  "BOFTConfig", "VeraConfig"};

std::string_view file_name(std::string_view path) {
  auto slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_adapter_json(const std::string& path) {
  return file_name(path) == "adapter_config.json";
}

const Node* root_map(const config::Tree& tree) {
  return tree.root && tree.root->kind == Node::Kind::Map ? tree.root.get() : nullptr;
}

std::string class_of_peft_type(std::string_view peft_type) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kTypes = {{
      {"LORA", "LoraConfig"},
      {"LOHA", "LoHaConfig"},
      {"LOKR", "LoKrConfig"},
      {"ADALORA", "AdaLoraConfig"},
      {"IA3", "IA3Config"},
      {"OFT", "OFTConfig"},
      {"BOFT", "BOFTConfig"},
      {"VERA", "VeraConfig"},
  }};
  for (auto [type, name] : kTypes)
    if (type == peft_type)
      return std::string(name);
  return "LoraConfig";
}

std::vector<PeftConfig> read_python(const std::string& text,
                                    std::vector<config::SyntaxProblem>* problems) {
  std::vector<std::string> functions(kConfigClasses.begin(), kConfigClasses.end());
  config::PythonCalls calls = config::read_python_calls(text, functions);
  if (problems)
    *problems = std::move(calls.problems);
  std::optional<Written> model;
  if (const config::PretrainedName* loaded = config::loaded_model(calls))
    model = Written{loaded->text, loaded->range};
  std::vector<PeftConfig> out;
  for (const config::PythonCall& call : calls.calls) {
    PeftConfig c;
    c.source = Source::PythonCall;
    c.class_name = call.function;
    c.anchor = call.function_range;
    c.call = call.range;
    detail::read_fields(*call.arguments, detail::kPeftFields, c);
    c.keys = detail::keys_written(*call.arguments);
    if (call.arguments->partial)
      c.unreadable.push_back(call.arguments->range);
    if (!c.base_model)
      c.base_model = model;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<PeftConfig> read_document(const std::string& path, const std::string& text,
                                      std::vector<config::SyntaxProblem>* problems) {
  bool json = config::guess_format(path, text) == config::Format::Json;
  config::Tree tree = config::scan_tree(text, json ? config::Format::Json : config::Format::Yaml);
  if (problems)
    *problems = std::move(tree.problems);
  const Node* root = root_map(tree);
  if (!root)
    return {};
  PeftConfig c;
  c.anchor = root->range;
  if (is_adapter_json(path) || detail::find(*root, "peft_type") ||
      (json && detail::find(*root, "target_modules"))) {
    c.source = Source::AdapterJson;
    if (const Node* type = detail::find(*root, "peft_type");
        type && type->kind == Node::Kind::Scalar)
      c.class_name = class_of_peft_type(type->scalar);
    detail::read_fields(*root, detail::kPeftFields, c);
    c.keys = detail::keys_written(*root);
    return {std::move(c)};
  }
  if (detail::find(*root, "lora_target_modules") || detail::find(*root, "lora_target_linear") ||
      detail::scalar_is(*root, "adapter", {"lora", "qlora"})) {
    c.source = Source::Axolotl;
    detail::read_fields(*root, detail::kAxolotlFields, c);
    return {std::move(c)};
  }
  if (detail::find(*root, "lora_target") || detail::scalar_is(*root, "finetuning_type", {"lora"})) {
    c.source = Source::LlamaFactory;
    detail::read_fields(*root, detail::kLlamaFactoryFields, c);
    // LLaMA-Factory: lora_alpha defaults to twice the rank.
    if (!detail::find(*root, "lora_alpha"))
      c.lora_alpha = 2.0 * c.r;
    return {std::move(c)};
  }
  return {};
}

} // namespace

std::vector<PeftConfig> read_peft_configs(const std::string& path, const std::string& text,
                                          std::vector<config::SyntaxProblem>* problems) {
  try {
    if (config::guess_format(path, text) == config::Format::Python)
      return read_python(text, problems);
    return read_document(path, text, problems);
  } catch (const std::exception&) { // never throws: an unreadable file holds no config
    return {};
  }
}

bool looks_like_peft(const std::string& path, const std::string& text) {
  if (is_adapter_json(path))
    return true;
  if (config::guess_format(path, text) == config::Format::Python) {
    bool names_peft = mentions(text, "peft");
    for (std::string_view c : kConfigClasses)
      names_peft = names_peft || mentions(text, c);
    return names_peft && !read_peft_configs(path, text).empty();
  }
  // YAML / JSON: only files with one of the keys the readers look for are read.
  for (std::string_view key : {"target_modules", "lora_target", "lora_target_modules",
                               "lora_target_linear", "peft_type", "finetuning_type", "adapter"})
    if (mentions(text, key))
      return !read_peft_configs(path, text).empty();
  return false;
}

} // namespace opscope::dialects::peft
