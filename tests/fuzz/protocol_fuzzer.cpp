// Bytes as a client could send them: framed by FrameDecoder (fed in pieces the
// fuzzer chooses, with stall flushes in between), parsed by parse_message, and
// dispatched by a language server that has no model. Any crash, leak, UB or
// runaway memory is a finding.
#include "lsp_server.h"

#include "opscope/protocol/framing.h"
#include "opscope/protocol/json_rpc.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>

namespace {

using namespace opscope;

// Swallows what the server sends, but serialises it: replies are part of what is tested.
class NullTransport : public lsp::Transport {
public:
  void notify(std::string_view method, protocol::Json params) override {
    sink(protocol::dump_message(protocol::make_notification(method, std::move(params))));
  }
  void call(std::string_view method, protocol::Json params, ReplyCallback) override {
    sink(protocol::dump_message(protocol::make_request(0, method, std::move(params))));
  }
  void reply(const protocol::RequestId& id, protocol::Outcome outcome) override {
    if (auto* result = std::get_if<protocol::Json>(&outcome))
      sink(protocol::dump_message(protocol::make_result(id, std::move(*result))));
    else if (auto* text = std::get_if<protocol::JsonText>(&outcome))
      sink(protocol::dump_result(id, text->text));
    else
      sink(protocol::dump_message(protocol::make_error(id, std::get<protocol::RpcError>(outcome))));
  }

private:
  void sink(const std::string& text) { bytes_ += text.size(); }
  std::size_t bytes_ = 0;
};

const std::string kInitialize = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":)"
                                R"({"processId":null,"rootUri":"file:///nonexistent-fuzz",)"
                                R"("capabilities":{}}})";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  // Small limits too, so that the oversized-body path is reached with small inputs.
  protocol::FrameDecoder decoder(input.ConsumeBool()
                                     ? protocol::FrameDecoder::kDefaultMaxBody
                                     : input.ConsumeIntegralInRange<std::size_t>(0, 4096));
  bool dispatch = input.ConsumeBool();

  boost::asio::io_context io;
  NullTransport transport;
  lsp::Logger log(lsp::LogLevel::Error);
  lsp::WorkerSettings workers{"/nonexistent/opscope-worker", std::chrono::milliseconds(100),
                              "/nonexistent/opscope-cache", std::chrono::milliseconds(100000)};
  std::optional<lsp::LspServer> server;
  if (dispatch) {
    server.emplace(io, transport, log, workers);
    std::vector<protocol::Message> init;
    init.push_back(protocol::parse_message(kInitialize));
    server->on_messages(std::move(init));
  }

  while (input.remaining_bytes() > 0) {
    std::size_t piece = input.ConsumeIntegralInRange<std::size_t>(1, 8192);
    decoder.feed(input.ConsumeBytesAsString(piece));
    if (input.ConsumeProbability<float>() < 0.1f)
      decoder.flush_stalled();
    std::vector<protocol::Message> batch;
    while (auto event = decoder.next()) {
      if (auto* frame = std::get_if<protocol::Frame>(&*event)) {
        protocol::Message message = protocol::parse_message(frame->body);
        if (auto* invalid = std::get_if<protocol::InvalidMessage>(&message))
          (void)protocol::dump_message(protocol::make_error(invalid->id, invalid->error));
        batch.push_back(std::move(message));
      }
    }
    if (server && !batch.empty() && !server->finished()) {
      server->on_messages(std::move(batch));
      io.poll(); // diagnostics and other timers due now
    }
  }
  if (server && !server->finished())
    server->on_disconnect();
  io.poll();
  return 0;
}
