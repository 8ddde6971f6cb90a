// The seam between the LSP session and the wire, shaped like clangd's
// Transport: the session sends notifications, calls and replies; it receives
// whole decoded messages. The Asio connection and the protocol fuzzer implement it.
#pragma once

#include "opscope/protocol/json_rpc.h"

#include <functional>
#include <string_view>
#include <variant>
#include <vector>

namespace opscope::lsp {

using protocol::Json;

class Transport {
public:
  using ReplyCallback = std::function<void(const protocol::Response&)>;
  virtual ~Transport() = default;
  virtual void notify(std::string_view method, Json params) = 0;
  // A server-to-client request; `on_reply` runs when the client answers.
  virtual void call(std::string_view method, Json params, ReplyCallback on_reply) = 0;
  virtual void reply(const protocol::RequestId& id, protocol::Outcome outcome) = 0;
};

class MessageHandler {
public:
  virtual ~MessageHandler() = default;
  // Messages decoded from one read, in order, so that a request and its
  // $/cancelRequest (or a later didChange) arriving together are seen together.
  // Responses to our own calls are routed by the connection, not passed here.
  virtual void on_messages(std::vector<protocol::Message> batch) = 0;
  // The client closed the stream.
  virtual void on_disconnect() = 0;
};

} // namespace opscope::lsp
