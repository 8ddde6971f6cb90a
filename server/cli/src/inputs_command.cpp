#include "commands.h"
#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/index/module_inputs.h"
#include "opscope/index/nearest.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace opscope::cli {
namespace {

CommandSpec inputs_spec() {
  CommandSpec spec{"inputs",
                   "MODEL MODULE [options]",
                   "For each input of MODULE: the op that produced it and the nearest module "
                   "that did, looking through functional ops (F.relu, torch.cat, ...) of the "
                   "enclosing modules.",
                   "",
                   model_options(false),
                   {"MODEL", "MODULE"}};
  spec.options.push_back({"--json", "", "", "print the answer as JSON"});
  return spec;
}

const char* kind_name(index::InputOrigin::Kind kind) {
  switch (kind) {
  case index::InputOrigin::Kind::Module:
    return "module";
  case index::InputOrigin::Kind::ModelInput:
    return "model_input";
  case index::InputOrigin::Kind::Untracked:
    return "untracked";
  }
  return "module";
}

std::string origin_text(const index::InputOrigin& origin) {
  std::string text;
  switch (origin.kind) {
  case index::InputOrigin::Kind::Module:
    text = origin.module.name + " (" + origin.module.type + ") op " + origin.op + " [" +
           origin.op_type + "]";
    break;
  case index::InputOrigin::Kind::ModelInput:
    text = "model input " + origin.op;
    break;
  case index::InputOrigin::Kind::Untracked:
    text = "untracked tensor " + origin.op;
    break;
  }
  if (!origin.via.empty()) {
    text += " via";
    for (const auto& op : origin.via)
      text += " " + op;
  }
  return text;
}

nlohmann::json inputs_json(const std::string& module_name, const index::Module& module,
                           const std::vector<index::ModuleInput>& inputs) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& input : inputs) {
    nlohmann::json consumers = nlohmann::json::array();
    for (const auto& edge : input.consumers)
      consumers.push_back({{"op", edge.op}, {"slot", edge.slot}});
    nlohmann::json origins = nlohmann::json::array();
    for (const auto& origin : input.origins)
      origins.push_back({{"kind", kind_name(origin.kind)},
                         {"op", origin.op},
                         {"op_type", origin.op_type},
                         {"module_name", origin.module.name},
                         {"module_type", origin.module.type},
                         {"via", origin.via}});
    rows.push_back({{"position", input.position},
                    {"consumers", consumers},
                    {"producer", input.producer},
                    {"producer_type", input.producer_type},
                    {"origins", origins}});
  }
  return {{"module_name", module_name}, {"module_type", module.type}, {"inputs", rows}};
}

} // namespace

int run_inputs(const std::vector<std::string>& args) {
  return guarded("inputs", [&] {
    CommandSpec spec = inputs_spec();
    ParsedArgs parsed = parse_args(spec, args);
    if (parsed.help) {
      std::cout << help_text(spec);
      return kExitOk;
    }
    const std::string& model_arg = parsed.positionals[0];
    const std::string& module_name = parsed.positionals[1];
    index::Index index = model::load_index(model_arg, model_settings(parsed));
    auto inputs = index::module_inputs(index, module_name);
    const index::Module* module = index.find_module(module_name);
    if (!inputs || module == nullptr) {
      std::vector<std::string> names;
      for (const auto& m : index.modules)
        names.push_back(m.name);
      auto close = index::nearest_names(module_name, names);
      std::string hint;
      for (size_t i = 0; i < close.size(); ++i)
        hint += (i ? ", " : "; did you mean ") + std::string("'") + close[i] + "'";
      throw std::runtime_error(model_arg + ": no module named '" + module_name + "'" +
                               (hint.empty() ? "; list them with `opscope summary`" : hint + "?"));
    }
    if (parsed.has("--json")) {
      std::cout << inputs_json(module_name, *module, *inputs).dump(2) << "\n";
      return kExitOk;
    }
    std::cout << (module_name.empty() ? "(model)" : module_name) << " (" << module->type << ")\n";
    if (inputs->empty())
      std::cout << "  no activation inputs\n";
    for (const auto& input : *inputs) {
      std::cout << "  input " << input.position << ": " << input.producer;
      if (!input.producer_type.empty())
        std::cout << " [" << input.producer_type << "]";
      std::cout << "\n";
      for (const auto& origin : input.origins)
        std::cout << "    from " << origin_text(origin) << "\n";
    }
    return kExitOk;
  });
}

} // namespace opscope::cli
