#include "opscope/protocol/json_rpc.h"

#include "opscope/protocol/json_depth.h"
#include "opscope/protocol/utf8.h"

namespace opscope::protocol {
namespace {

// Reads an id; nullopt when present but not an integer or string.
std::optional<RequestId> read_id(const Json& value) {
  if (value.is_number_integer())
    return RequestId{value.get<std::int64_t>()};
  if (value.is_string())
    return RequestId{value.get<std::string>()};
  return std::nullopt;
}

InvalidMessage invalid(RequestId id, std::string message) {
  return {std::move(id), {ErrorCode::InvalidRequest, std::move(message)}};
}

// Reads the top-level "id" of a message too deeply nested to build as a DOM,
// so that the error reply can name it. Values below the top level are only
// counted, never stored; nlohmann's own parse stack keeps one bit per level.
class TopLevelIdReader : public nlohmann::json_sax<Json> {
public:
  RequestId id;
  bool has_method = false; // a request (or notification), not a response

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t number) override {
    return value(RequestId{static_cast<std::int64_t>(number)});
  }
  bool number_unsigned(number_unsigned_t number) override {
    if (number <= static_cast<number_unsigned_t>(INT64_MAX))
      return value(RequestId{static_cast<std::int64_t>(number)});
    return value();
  }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t& text) override { return value(RequestId{text}); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t& name) override {
    at_id_key_ = depth_ == 1 && name == "id";
    has_method = has_method || (depth_ == 1 && name == "method");
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

private:
  bool value(std::optional<RequestId> read = std::nullopt) {
    if (at_id_key_ && depth_ == 1 && read)
      id = std::move(*read);
    at_id_key_ = false;
    return true;
  }
  bool open() {
    at_id_key_ = false;
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  std::size_t depth_ = 0;
  bool at_id_key_ = false;
};

InvalidMessage too_deeply_nested(std::string_view body, std::size_t depth) {
  TopLevelIdReader reader;
  bool valid = Json::sax_parse(sanitize_utf8(body), &reader, nlohmann::json::input_format_t::json,
                               /*strict=*/true, /*ignore_comments=*/false);
  std::string message = "the message nests " + std::to_string(depth) +
                        " levels of arrays and objects; the limit is " +
                        std::to_string(kMaxJsonNesting);
  if (!valid)
    return InvalidMessage{{}, {ErrorCode::ParseError, message + " (and it is not valid JSON)"}};
  // The id of a response is ours: answering it would look like a reply to our own call.
  return InvalidMessage{reader.has_method ? reader.id : RequestId{},
                        {ErrorCode::InvalidRequest, message}};
}

} // namespace

Json to_json_id(const RequestId& id) {
  if (auto number = std::get_if<std::int64_t>(&id))
    return *number;
  if (auto text = std::get_if<std::string>(&id))
    return *text;
  return nullptr;
}

std::string to_string(const RequestId& id) {
  return dump_message(to_json_id(id));
}

Message classify_message(const Json& value) {
  if (!value.is_object())
    return invalid({}, "a JSON-RPC message must be a JSON object");
  RequestId id;
  bool has_id = value.contains("id") && !value["id"].is_null();
  if (has_id) {
    auto parsed = read_id(value["id"]);
    if (!parsed)
      return invalid({}, "\"id\" must be an integer or a string");
    id = *parsed;
  }
  auto version = value.find("jsonrpc");
  if (version == value.end() || *version != "2.0")
    return invalid(id, "\"jsonrpc\" must be \"2.0\"");
  auto method = value.find("method");
  if (method != value.end()) {
    if (!method->is_string())
      return invalid(id, "\"method\" must be a string");
    Json params = value.value("params", Json());
    if (!params.is_null() && !params.is_object() && !params.is_array())
      return invalid(id, "\"params\" must be an object or an array");
    if (has_id)
      return Request{id, method->get<std::string>(), std::move(params)};
    return Notification{method->get<std::string>(), std::move(params)};
  }
  if (value.contains("result") || value.contains("error")) {
    Response response{id, std::nullopt, std::nullopt};
    if (auto error = value.find("error"); error != value.end() && error->is_object()) {
      response.error = RpcError{static_cast<ErrorCode>(error->value("code", -32603)),
                                error->value("message", std::string())};
    } else {
      response.result = value.value("result", Json());
    }
    return response;
  }
  return invalid(id, "a message needs a \"method\" (request, notification) or a \"result\" or "
                     "\"error\" (response)");
}

Message parse_message(std::string_view body) {
  // Measured first: copying or dumping a deeper DOM would recurse once per level.
  if (std::size_t depth = json_nesting_depth(body); depth > kMaxJsonNesting)
    return too_deeply_nested(body, depth);
  Json value = Json::parse(sanitize_utf8(body), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded())
    return InvalidMessage{{}, {ErrorCode::ParseError, "the message body is not valid JSON"}};
  return classify_message(value);
}

Json make_request(const RequestId& id, std::string_view method, Json params) {
  Json out = {{"jsonrpc", "2.0"}, {"id", to_json_id(id)}, {"method", method}};
  if (!params.is_null())
    out["params"] = std::move(params);
  return out;
}

Json make_notification(std::string_view method, Json params) {
  Json out = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null())
    out["params"] = std::move(params);
  return out;
}

Json make_result(const RequestId& id, Json result) {
  return {{"jsonrpc", "2.0"}, {"id", to_json_id(id)}, {"result", std::move(result)}};
}

Json make_error(const RequestId& id, const RpcError& error) {
  return {{"jsonrpc", "2.0"},
          {"id", to_json_id(id)},
          {"error", {{"code", static_cast<int>(error.code)}, {"message", error.message}}}};
}

std::string dump_message(const Json& message) {
  return message.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string dump_result(const RequestId& id, std::string_view result_text) {
  std::string out;
  out.reserve(result_text.size() + 48);
  {
    JsonObjectWriter message(out);
    message.key("id") += dump_message(to_json_id(id));
    message.field("jsonrpc", "2.0");
    message.key("result") += result_text;
  }
  return out;
}

} // namespace opscope::protocol
