// Prints the compressor table as compiled into opscope, as JSON, for
// test_compressor_tables.py to compare with the installed coreai-opt's registries.
#include "opscope/coreai/compressors.h"

#include <nlohmann/json.hpp>

#include <iostream>

int main() {
  using namespace opscope::coreai;
  auto strings = [](std::span<const std::string_view> values) {
    nlohmann::json out = nlohmann::json::array();
    for (std::string_view v : values)
      out.push_back(std::string(v));
    return out;
  };
  auto functions = [](std::span<const RegisteredFunction> entries) {
    nlohmann::json out = nlohmann::json::array();
    for (const RegisteredFunction& e : entries)
      out.push_back({std::string(e.function), std::string(e.type)});
    return out;
  };
  nlohmann::json table = nlohmann::json::object();
  for (const CompressorInfo& c : compressors()) {
    nlohmann::json modes = nlohmann::json::array();
    for (Mode m : {Mode::Graph, Mode::Eager})
      if (mode_supports(m, c.id))
        modes.push_back(to_string(m));
    table[std::string(c.name)] = {
        {"class_name", std::string(c.class_name)},
        {"config_classes",
         {config_class(c, ConfigLevel::Top), config_class(c, ConfigLevel::Module),
          config_class(c, ConfigLevel::Op)}},
        {"root_key", std::string(c.root_key)},
        {"spec_key", std::string(c.spec_key)},
        {"modes", modes},
        {"graph",
         {{"aten_targets", strings(c.graph.aten_targets)},
          {"op_types", strings(c.graph.op_types)},
          {"functions", functions(c.graph.functions)}}},
        {"eager", functions(c.eager)},
    };
  }
  std::cout << table.dump(1) << "\n";
}
