// The PEFT judge's C++ side: one process for thousands of configs. Reads an index file and a
// file of configs, one adapter_config.json-shaped JSON object per line, and prints per line
// what opscope's PEFT dialect says get_peft_model does (tests/dialects/test_peft_judge.py
// compares it with PEFT).
#include "opscope/dialects/peft/peft.h"
#include "opscope/index/serialize.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

using namespace opscope;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: peft_judge INDEX CONFIGS.jsonl\n";
    return 2;
  }
  index::Index model = index::load_index(argv[1]);
  const auto& modules = model.named_modules();
  std::ifstream configs(argv[2]);
  std::string line;
  while (std::getline(configs, line)) {
    std::vector<dialects::peft::PeftConfig> read =
        dialects::peft::read_peft_configs("adapter_config.json", line);
    nlohmann::json out;
    if (read.size() != 1) {
      out["unread"] = true;
      std::cout << out.dump() << '\n';
      continue;
    }
    dialects::peft::Resolution r = dialects::peft::resolve(read.front(), model);
    nlohmann::json wrapped = nlohmann::json::array(), rank = nlohmann::json::object(),
                   alpha = nlohmann::json::object(), saved = nlohmann::json::array();
    for (const auto& w : r.wrapped) {
      const std::string& name = modules[static_cast<std::size_t>(w.module)].name;
      wrapped.push_back(name);
      rank[name] = w.rank;
      alpha[name] = w.alpha;
    }
    for (int s : r.saved)
      saved.push_back(modules[static_cast<std::size_t>(s)].name);
    out["wrapped"] = wrapped;
    out["rank"] = rank;
    out["alpha"] = alpha;
    out["saved"] = saved;
    out["parameters"] = r.wrapped_parameters;
    out["trainable"] = r.trainable_parameters;
    out["all"] = r.all_parameters;
    out["counted"] = r.counted;
    out["error"] = r.error ? nlohmann::json(r.error_code) : nlohmann::json();
    std::cout << out.dump() << '\n';
  }
  return 0;
}
