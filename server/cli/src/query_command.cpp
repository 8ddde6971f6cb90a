#include "commands.h"
#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/format/op_view.h"
#include "opscope/index/nearest.h"
#include "opscope/index/query.h"

#include <iostream>
#include <set>

namespace opscope::cli {
namespace {

struct QueryFlag {
  const char* option;
  index::Table kind;
};

constexpr QueryFlag kQueryFlags[] = {{"--op-type", index::Table::OpType},
                                     {"--op-name", index::Table::OpName},
                                     {"--module-name", index::Table::ModuleName},
                                     {"--module-type", index::Table::ModuleType}};

CommandSpec query_spec() {
  CommandSpec spec{"query",
                   "MODEL (--op-type T | --op-name RE | --module-name RE | --module-type T) "
                   "[options]",
                   "List the ops a coreai-opt config key would select, as ModelInspector's "
                   "get_matched_ops_for_* do: types are exact, names are Python regexes that "
                   "must match the whole name.",
                   "Text output: one line per op: `name [type]  module (type)  file:line`.",
                   model_options(true),
                   {"MODEL"}};
  spec.options.push_back({"--op-type", "", "T", "ops of this type (op_type_config key)"});
  spec.options.push_back({"--op-name", "", "RE", "ops whose name matches (op_name_config key)"});
  spec.options.push_back(
      {"--module-name", "", "RE", "ops inside a module whose name matches (module_name_configs)"});
  spec.options.push_back(
      {"--module-type", "", "T", "ops inside a module of this type (module_type_configs)"});
  spec.options.push_back({"--json", "", "", "print the ops as a JSON list"});
  return spec;
}

// The candidates a user probably meant, for an empty answer.
std::vector<std::string> suggestions(const index::Index& index, index::Table kind,
                                     const std::string& text) {
  std::set<std::string> names;
  for (const auto& op : index.ops) {
    if (op.kind != index::OpKind::Call)
      continue;
    if (kind == index::Table::OpName)
      names.insert(op.name);
    else if (kind == index::Table::OpType)
      names.insert(op.type);
  }
  for (size_t m = 1; m < index.modules.size(); ++m) {
    if (kind == index::Table::ModuleName)
      names.insert(index.modules[m].name);
    else if (kind == index::Table::ModuleType)
      names.insert(index.modules[m].type);
  }
  return index::nearest_names(text, {names.begin(), names.end()});
}

std::string text_row(const index::Index& index, const index::Op& op) {
  std::string row = op.name + " [" + (op.type.empty() ? "?" : op.type) + "]  ";
  if (op.module_stack.empty() || op.module_stack.back().name.empty())
    row += "(" + index.model_type() + ")";
  else
    row += op.module_stack.back().name + " (" + op.module_stack.back().type + ")";
  if (auto source = format::op_source(op))
    row += "  " + source->path_line();
  return row;
}

} // namespace

int run_query(const std::vector<std::string>& args) {
  return guarded("query", [&] {
    CommandSpec spec = query_spec();
    ParsedArgs parsed = parse_args(spec, args);
    if (parsed.help) {
      std::cout << help_text(spec);
      return kExitOk;
    }
    const QueryFlag* chosen = nullptr;
    for (const auto& flag : kQueryFlags) {
      if (!parsed.has(flag.option))
        continue;
      if (chosen)
        throw UsageError(std::string("give one of --op-type, --op-name, --module-name, "
                                     "--module-type, not both ") +
                         chosen->option + " and " + flag.option);
      chosen = &flag;
    }
    if (!chosen)
      throw UsageError("say what to match: --op-type T, --op-name RE, --module-name RE or "
                       "--module-type T");
    const std::string text = parsed.value(chosen->option);
    index::Query query(chosen->kind, text);
    const auto& status = query.status();
    if (!status.ok()) {
      std::string where =
          status.offset >= 0 ? " at column " + std::to_string(status.offset + 1) : "";
      if (status.kind == index::PatternStatus::Kind::PythonOnly)
        throw std::runtime_error(std::string(chosen->option) + " '" + text + "': " + status.reason +
                                 where +
                                 " is valid Python but opscope (RE2) cannot evaluate it; "
                                 "rewrite it without it to check what it matches");
      throw std::runtime_error(std::string(chosen->option) + " '" + text + "': invalid regex" +
                               where + ": " + status.reason);
    }

    model::Settings settings = model_settings(parsed);
    check_compressor_early(parsed, settings, parsed.positionals[0]);
    index::Index index = model::load_index(parsed.positionals[0], settings);
    index::Compressor compressor = compressor_option(parsed, index.mode);
    index::QueryEngine engine(index);
    std::vector<int> matched = engine.match(query, compressor);

    // Show each op with the type the compressor registers it under, as the summary does.
    auto shown = [&](int op) {
      index::Op copy = index.ops[op];
      copy.type = index.type_for(copy, compressor);
      return copy;
    };
    if (parsed.has("--json")) {
      nlohmann::json rows = nlohmann::json::array();
      for (int op : matched)
        rows.push_back(format::op_json(shown(op)));
      std::cout << rows.dump(2) << "\n";
    } else {
      for (int op : matched)
        std::cout << text_row(index, shown(op)) << "\n";
    }
    if (matched.empty() && !settings.quiet) {
      std::string message =
          std::string("opscope: nothing matches ") + chosen->option + " '" + text + "'" +
          (compressor == index::Compressor::None
               ? ""
               : std::string(" among the ops the ") + index::to_string(compressor) + " registers");
      auto close = suggestions(index, chosen->kind, text);
      if (!close.empty()) {
        message += "; did you mean ";
        for (size_t i = 0; i < close.size(); ++i)
          message += (i ? ", " : "") + std::string("'") + close[i] + "'";
        message += "?";
      }
      std::cerr << message << "\n";
    }
    return kExitOk;
  });
}

} // namespace opscope::cli
