#include "opscope/schema/schema.h"

#include <stdexcept>

namespace opscope::schema {

extern const char* const kBuiltinDump; // generated from data/coreai-opt-0.4.0.json

std::shared_ptr<const Schema> builtin() {
  static const std::shared_ptr<const Schema> schema = [] {
    auto parsed = parse(kBuiltinDump);
    if (auto* error = std::get_if<std::string>(&parsed))
      throw std::logic_error("the built-in coreai-opt schema does not parse: " + *error);
    return std::get<std::shared_ptr<const Schema>>(parsed);
  }();
  return schema;
}

const Schema& chosen_or_builtin(const std::shared_ptr<const void>& chosen) {
  return chosen ? *static_cast<const Schema*>(chosen.get()) : *builtin();
}

} // namespace opscope::schema
