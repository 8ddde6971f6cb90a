#include "opscope/protocol/method_table.h"

namespace opscope::protocol {

std::string MethodTable::describe_params_error(const Json::exception& e) {
  // nlohmann prefixes "[json.exception.type_error.302] "; users need the rest.
  std::string what = e.what();
  if (auto close = what.find("] "); close != std::string::npos)
    what = what.substr(close + 2);
  return "invalid params: " + what;
}

void MethodTable::call(const std::string& method, const Json& params, Reply reply) const {
  auto it = requests_.find(method);
  if (it == requests_.end())
    return reply.error(ErrorCode::MethodNotFound, "method not found: " + method);
  it->second(params, reply);
}

std::optional<std::string> MethodTable::notify(const std::string& method,
                                               const Json& params) const {
  auto it = notifications_.find(method);
  if (it == notifications_.end())
    return "ignoring unknown notification " + method;
  try {
    it->second(params);
  } catch (const InvalidNotification& e) {
    return method + ": " + e.what();
  }
  return std::nullopt;
}

void MethodTable::execute(const std::string& command, const Json& arguments, Reply reply) const {
  auto it = commands_.find(command);
  if (it == commands_.end()) {
    std::string expected;
    for (std::size_t i = 0; i < command_names_.size(); ++i)
      expected += (i == 0                           ? ""
                   : i + 1 == command_names_.size() ? " or "
                                                    : ", ") +
                  command_names_[i];
    return reply.error(ErrorCode::InvalidParams,
                       "unknown command " + command + " (expected " + expected + ")");
  }
  it->second(arguments.is_array() && !arguments.empty() ? arguments[0] : Json(nullptr), reply);
}

} // namespace opscope::protocol
