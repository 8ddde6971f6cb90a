// A table of LSP methods, in the style of clangd's LSPBinder: one line binds a
// method name to a handler taking typed parameters, parsed once here. Unknown
// methods and unparseable parameters become the standard JSON-RPC errors.
//
//   table.request<TextDocumentPositionParams>("textDocument/hover",
//       [this](const auto& params, Reply reply) { reply.result(hover(params)); });
#pragma once

#include "opscope/protocol/json_rpc.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace opscope::protocol {

// Sends the one response to a request. Copies share the "already sent" state,
// so a handler may keep a copy to answer later; a second answer is dropped.
class Reply {
public:
  using Sink = std::function<void(Outcome)>;
  explicit Reply(Sink sink) : state_(std::make_shared<State>(State{std::move(sink), false})) {}

  void result(Json value) const { send(std::move(value)); }
  // A result already written as JSON text (see json_text.h).
  void result(JsonText value) const { send(std::move(value)); }
  void error(ErrorCode code, std::string message) const {
    send(RpcError{code, std::move(message)});
  }
  bool sent() const { return state_->sent; }

private:
  struct State {
    Sink sink;
    bool sent;
  };
  void send(Outcome outcome) const {
    if (state_->sent)
      return;
    state_->sent = true;
    state_->sink(std::move(outcome));
  }
  std::shared_ptr<State> state_;
};

class MethodTable {
public:
  using RequestHandler = std::function<void(const Json& params, Reply reply)>;
  using NotificationHandler = std::function<void(const Json& params)>;

  template <typename Params, typename Handler> void request(std::string method, Handler handler) {
    requests_[std::move(method)] = [handler = std::move(handler)](const Json& params, Reply reply) {
      auto parsed = parse<Params>(params);
      if (std::holds_alternative<std::string>(parsed))
        return reply.error(ErrorCode::InvalidParams, std::get<std::string>(parsed));
      handler(std::get<Params>(parsed), reply);
    };
  }

  template <typename Params, typename Handler>
  void notification(std::string method, Handler handler) {
    notifications_[std::move(method)] = [handler = std::move(handler)](const Json& params) {
      auto parsed = parse<Params>(params);
      if (std::holds_alternative<std::string>(parsed))
        throw InvalidNotification(std::get<std::string>(parsed));
      handler(std::get<Params>(parsed));
    };
  }

  // Runs the handler or replies MethodNotFound / InvalidParams.
  void call(const std::string& method, const Json& params, Reply reply) const;
  // Runs the handler; returns what went wrong for the log, if anything
  // (notifications get no reply, so errors can only be logged).
  std::optional<std::string> notify(const std::string& method, const Json& params) const;

  // A workspace/executeCommand command, bound like a request (clangd's LSPBinder::command):
  // the handler gets the command's first argument (null when there is none) parsed as Arg.
  template <typename Arg, typename Handler> void command(std::string name, Handler handler) {
    command_names_.push_back(name);
    commands_[std::move(name)] = [handler = std::move(handler)](const Json& argument, Reply reply) {
      auto parsed = parse<Arg>(argument);
      if (std::holds_alternative<std::string>(parsed))
        return reply.error(ErrorCode::InvalidParams, std::get<std::string>(parsed));
      handler(std::get<Arg>(parsed), reply);
    };
  }
  // Runs the command named `command` with its `arguments` (a JSON array), or replies
  // InvalidParams naming the commands there are.
  void execute(const std::string& command, const Json& arguments, Reply reply) const;
  // In the order they were bound: executeCommandProvider.commands.
  const std::vector<std::string>& command_names() const { return command_names_; }

private:
  struct InvalidNotification : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  template <typename Params> static std::variant<Params, std::string> parse(const Json& params) {
    if constexpr (std::is_same_v<Params, Json>) {
      return params;
    } else {
      try {
        return params.get<Params>();
      } catch (const Json::exception& e) {
        return describe_params_error(e);
      }
    }
  }
  static std::string describe_params_error(const Json::exception& e);

  std::map<std::string, RequestHandler, std::less<>> requests_;
  std::map<std::string, NotificationHandler, std::less<>> notifications_;
  std::map<std::string, RequestHandler, std::less<>> commands_;
  std::vector<std::string> command_names_;
};

} // namespace opscope::protocol
