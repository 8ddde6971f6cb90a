#include "opscope/coreai/tables.h"

namespace opscope::coreai {

const char* config_key(Table table) {
  switch (table) {
  case Table::ModuleName:
    return "module_name_configs";
  case Table::ModuleType:
    return "module_type_configs";
  case Table::OpName:
    return "op_name_config";
  case Table::OpType:
    return "op_type_config";
  }
  return "";
}

const char* query_name(Table table) {
  switch (table) {
  case Table::OpType:
    return "op_type";
  case Table::OpName:
    return "op_name";
  case Table::ModuleType:
    return "module_type";
  case Table::ModuleName:
    return "module_name";
  }
  return "op_name";
}

} // namespace opscope::coreai
