// The four tables of a coreai-opt config whose keys name parts of the model, which are
// also the four lookups over a model (`opscope query --op-type ...`). No dependencies.
#pragma once

namespace opscope::coreai {

enum class Table {
  ModuleName, // module_name_configs: full-match regex over module names
  ModuleType, // module_type_configs: exact fully-qualified class name
  OpName,     // op_name_config: full-match regex over op names
  OpType,     // op_type_config: exact op type
};

// The config key of the table: "module_name_configs", "op_type_config", ...
const char* config_key(Table table);
// The lookup's short name: "module_name", "op_type", ...
const char* query_name(Table table);
// True for the two tables whose keys are regexes.
constexpr bool is_pattern_table(Table table) {
  return table == Table::OpName || table == Table::ModuleName;
}

} // namespace opscope::coreai
