// The llm-compressor judge's C++ side: one process for thousands of recipes. Reads an index
// file and a file of recipes, one flat-form recipe per line (JSON, which is YAML: read as a
// recipe.yaml), and prints per line what opscope's llm-compressor dialect says: the scheme
// each module gets, the mapping sets, and whether llm-compressor refuses it
// (tests/dialects/test_llmcompressor_judge.py compares it with llm-compressor).
#include "opscope/dialects/llmcompressor/llmcompressor.h"
#include "opscope/index/serialize.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

using namespace opscope;
namespace lc = opscope::dialects::llmcompressor;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: llmcompressor_judge INDEX RECIPES.jsonl\n";
    return 2;
  }
  index::Index model = index::load_index(argv[1]);
  const auto& modules = model.named_modules();
  auto name = [&](int m) { return modules[static_cast<std::size_t>(m)].name; };
  std::ifstream recipes(argv[2]);
  std::string line;
  while (std::getline(recipes, line)) {
    std::vector<lc::Modifier> read = lc::read_llmcompressor_configs("recipe.yaml", line);
    nlohmann::json out;
    if (read.size() != 1) {
      out["unread"] = true;
      std::cout << out.dump() << '\n';
      continue;
    }
    lc::Resolution r = lc::resolve(read.front(), model);
    nlohmann::json applied = nlohmann::json::object(), mappings = nlohmann::json::array();
    for (const lc::Applied& a : r.applied)
      applied[name(a.module)] = lc::signature(r.groups[static_cast<std::size_t>(a.group)].scheme);
    for (const lc::ResolvedMapping& m : r.mappings) {
      nlohmann::json sets = nlohmann::json::array();
      for (const auto& set : m.sets) {
        nlohmann::json lists = nlohmann::json::array();
        for (const auto& list : set) {
          nlohmann::json names = nlohmann::json::array();
          for (int i : list)
            names.push_back(name(i));
          lists.push_back(names);
        }
        sets.push_back(lists);
      }
      mappings.push_back(sets);
    }
    out["applied"] = applied;
    out["mappings"] = mappings;
    out["error"] = r.error ? nlohmann::json(r.error_code) : nlohmann::json();
    out["findings"] = lc::diagnose(read.front(), r, model).size();
    std::cout << out.dump() << '\n';
  }
  return 0;
}
