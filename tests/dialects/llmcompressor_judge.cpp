// The llm-compressor judge's C++ side: one process for thousands of recipes. Reads an index
// file and a file of recipes, one flat-form recipe per line (JSON, which is YAML: read as a
// recipe.yaml; or one Python modifier call per line), and prints per line what opscope's
// llm-compressor dialect says: the scheme each module gets, the mapping sets, and whether
// llm-compressor refuses it (tests/dialects/test_llmcompressor_judge.py compares it with
// llm-compressor).
#include "opscope/dialects/llmcompressor/dialect.h"
#include "opscope/dialects/llmcompressor/llmcompressor.h"
#include "opscope/index/serialize.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

using namespace opscope;
namespace lc = opscope::dialects::llmcompressor;

// `--tables`: the modifier fields and preset schemes opscope holds, for the judge to compare
// with the installed classes.
int print_tables() {
  nlohmann::json fields = nlohmann::json::object(), presets = nlohmann::json::object();
  for (const std::string& c : lc::modifier_classes())
    fields[c] = lc::modifier_fields(c);
  for (const std::string& p : lc::preset_names())
    presets[p] = lc::signature(*lc::preset_scheme(p));
  nlohmann::json linearized = nlohmann::json::array();
  for (const lc::LinearizedClass& c : lc::linearized_classes())
    linearized.push_back({{"fused", c.fused},
                          {"transposed", c.transposed},
                          {"gated", c.gated},
                          {"experts", c.experts_class},
                          {"expert", c.expert_class}});
  std::cout
      << nlohmann::json{{"fields", fields}, {"presets", presets}, {"linearized", linearized}}.dump()
      << '\n';
  return 0;
}

// `--forms RECIPES.jsonl`: each line a JSON string, a whole recipe file's text (any nesting);
// prints the classes of the modifiers opscope says llm-compressor applies, in order, how many
// it says are never read, and the quick fixes its recipe-not-read diagnostics offer, as the
// editor gets them (tests/dialects/test_llmcompressor_recipe_forms.py compares them with
// Recipe.create_instance, and applies the fixes).
int print_forms(const char* path) {
  std::ifstream recipes(path);
  std::string line;
  const index::Index none; // a recipe's modifiers are read or not whatever the model
  while (std::getline(recipes, line)) {
    std::string text = nlohmann::json::parse(line).get<std::string>();
    nlohmann::json applied = nlohmann::json::array();
    int not_read = 0;
    for (const lc::Modifier& m : lc::read_llmcompressor_configs("recipe.yaml", text))
      if (m.applied)
        applied.push_back(m.class_name);
      else
        ++not_read;
    nlohmann::json fixes = nlohmann::json::array();
    for (const dialects::Diagnostic& f : lc::dialect().read("recipe.yaml", text)->diagnose(none))
      if (f.code == "recipe-not-read")
        for (const dialects::Fix& r : f.fixes)
          fixes.push_back({{"title", r.title},
                           {"start", {r.edit.range.start.line, r.edit.range.start.byte_col}},
                           {"end", {r.edit.range.end.line, r.edit.range.end.byte_col}},
                           {"new_text", r.edit.new_text}});
    std::cout
        << nlohmann::json{{"applied", applied}, {"not_read", not_read}, {"fixes", fixes}}.dump()
        << '\n';
  }
  return 0;
}

// `--modules INDEX`: the model as llm-compressor's oneshot sees it (linearize_moe): every module
// (name, class, MRO) and parameter (name, shape, dtype), for
// tests/dialects/test_llmcompressor_moe.py to compare with the model linearize_moe makes.
int print_modules(const char* path) {
  index::Index model = lc::linearize_moe(index::load_index(path));
  nlohmann::json modules = nlohmann::json::array(), parameters = nlohmann::json::array();
  for (const index::ModuleObject& m : model.named_modules())
    modules.push_back({m.name, m.type, m.mro});
  for (const index::Parameter& p : model.parameters)
    if (!p.buffer)
      parameters.push_back({p.name, p.shape, p.dtype});
  std::cout << nlohmann::json{{"modules", modules},
                              {"parameters", parameters},
                              {"fused_left", lc::fused_experts_left(model)}}
                   .dump()
            << '\n';
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--tables")
    return print_tables();
  if (argc == 3 && std::string(argv[1]) == "--forms")
    return print_forms(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "--modules")
    return print_modules(argv[2]);
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: llmcompressor_judge INDEX RECIPES.jsonl [AS_PATH]\n"
                 "       llmcompressor_judge --tables\n"
                 "       llmcompressor_judge --forms RECIPE_TEXTS.jsonl\n"
                 "       llmcompressor_judge --modules INDEX\n";
    return 2;
  }
  // Each line is read as a whole file of this name: recipe.yaml (JSON is YAML's flow form),
  // or oneshot.py for lines that are Python modifier calls.
  const std::string as_path = argc == 4 ? argv[3] : "recipe.yaml";
  // The model as oneshot sees it: fused MoE experts split (linearize_moe).
  index::Index model = lc::linearize_moe(index::load_index(argv[1]));
  const auto& modules = model.named_modules();
  auto name = [&](int m) { return modules[static_cast<std::size_t>(m)].name; };
  std::ifstream recipes(argv[2]);
  std::string line;
  while (std::getline(recipes, line)) {
    std::vector<lc::Modifier> read = lc::read_llmcompressor_configs(as_path, line);
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
