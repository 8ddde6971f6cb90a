#include "class_fields.h"

#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>

namespace opscope::dialects::peft {
extern const char* const kBuiltinFields; // data/peft-fields.json, embedded at build time
}

namespace opscope::dialects::peft::detail {
namespace {

struct Table {
  std::string peft_version;
  std::map<std::string, std::vector<ClassField>, std::less<>> classes;
};

const Table& table() {
  static const Table parsed = [] {
    // Built in and checked by ctest: a parse failure is a build defect, not user input.
    const nlohmann::json dump = nlohmann::json::parse(kBuiltinFields);
    Table t;
    t.peft_version = dump.at("peft_version").get<std::string>();
    for (const auto& [name, fields] : dump.at("classes").items()) {
      std::vector<ClassField>& out = t.classes[name];
      for (const nlohmann::json& f : fields)
        out.push_back({f.at("name").get<std::string>(), f.at("type").get<std::string>(),
                       f.at("help").get<std::string>()});
    }
    return t;
  }();
  return parsed;
}

} // namespace

const std::vector<ClassField>* fields_of_class(std::string_view class_name) {
  const Table& t = table();
  auto it = t.classes.find(class_name);
  return it == t.classes.end() ? nullptr : &it->second;
}

const std::string& fields_peft_version() {
  return table().peft_version;
}

} // namespace opscope::dialects::peft::detail
