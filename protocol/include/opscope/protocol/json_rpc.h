// JSON-RPC 2.0 messages as LSP uses them: requests, notifications, responses,
// and the standard error codes.
#pragma once

#include "opscope/protocol/json_text.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace opscope::protocol {

using Json = nlohmann::json;

enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  UnknownErrorCode = -32001,
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

struct RpcError {
  ErrorCode code = ErrorCode::InternalError;
  std::string message;
};

// A request id is an integer or a string; a response to an unparseable
// message carries id null (std::monostate).
using RequestId = std::variant<std::monostate, std::int64_t, std::string>;
Json to_json_id(const RequestId& id);
std::string to_string(const RequestId& id); // for logs: 7, "abc", null

struct Request {
  RequestId id;
  std::string method;
  Json params; // null when absent
};

struct Notification {
  std::string method;
  Json params;
};

struct Response {
  RequestId id;
  std::optional<Json> result; // set unless `error` is
  std::optional<RpcError> error;
};

// What a well-formed JSON value turned out to be. An InvalidMessage says why it
// is not JSON-RPC and which id (if any could be read) the error reply carries.
struct InvalidMessage {
  RequestId id;
  RpcError error;
};
using Message = std::variant<Request, Notification, Response, InvalidMessage>;

// Parses one message body. Malformed JSON yields InvalidMessage{null, ParseError};
// invalid UTF-8 is replaced rather than rejected.
Message parse_message(std::string_view body);
Message classify_message(const Json& value);

Json make_request(const RequestId& id, std::string_view method, Json params);
Json make_notification(std::string_view method, Json params);
Json make_result(const RequestId& id, Json result);
Json make_error(const RequestId& id, const RpcError& error);

// Serialises a message; invalid UTF-8 in strings is replaced, never thrown on.
std::string dump_message(const Json& message);

// What a request ends with: a result (a DOM, or JSON text already written) or an error.
using Outcome = std::variant<Json, JsonText, RpcError>;
// The response message for a result already written as JSON text: the bytes
// dump_message(make_result(id, result)) would give.
std::string dump_result(const RequestId& id, std::string_view result_text);

} // namespace opscope::protocol
