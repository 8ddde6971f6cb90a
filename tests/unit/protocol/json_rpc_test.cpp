#include "opscope/protocol/json_rpc.h"

#include "opscope/protocol/json_depth.h"

#include <gtest/gtest.h>

namespace opscope::protocol {
namespace {

TEST(ParseMessage, Request) {
  auto message = parse_message(R"({"jsonrpc":"2.0","id":3,"method":"shutdown"})");
  auto* request = std::get_if<Request>(&message);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->method, "shutdown");
  EXPECT_EQ(std::get<std::int64_t>(request->id), 3);
  EXPECT_TRUE(request->params.is_null());
}

TEST(ParseMessage, StringIdAndNotification) {
  auto request = parse_message(R"({"jsonrpc":"2.0","id":"a","method":"m","params":{}})");
  EXPECT_EQ(std::get<std::string>(std::get<Request>(request).id), "a");
  auto note = parse_message(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  EXPECT_EQ(std::get<Notification>(note).method, "initialized");
}

TEST(ParseMessage, MalformedJsonIsParseErrorWithNullId) {
  auto message = parse_message(R"({"jsonrpc":"2.0", "id": 1, "method": )");
  auto* invalid = std::get_if<InvalidMessage>(&message);
  ASSERT_NE(invalid, nullptr);
  EXPECT_EQ(invalid->error.code, ErrorCode::ParseError);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(invalid->id));
  EXPECT_EQ(make_error(invalid->id, invalid->error)["id"], nullptr);
}

TEST(ParseMessage, InvalidRequestsKeepTheirIdWhenReadable) {
  auto wrong_version = parse_message(R"({"jsonrpc":"1.0","id":5,"method":"m"})");
  auto& invalid = std::get<InvalidMessage>(wrong_version);
  EXPECT_EQ(invalid.error.code, ErrorCode::InvalidRequest);
  EXPECT_EQ(std::get<std::int64_t>(invalid.id), 5);

  auto numeric_method = parse_message(R"({"jsonrpc":"2.0","id":6,"method":12})");
  EXPECT_EQ(std::get<InvalidMessage>(numeric_method).error.code, ErrorCode::InvalidRequest);

  auto object_id = parse_message(R"({"jsonrpc":"2.0","id":{},"method":"m"})");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(std::get<InvalidMessage>(object_id).id));

  auto array = parse_message(R"([1,2])");
  EXPECT_EQ(std::get<InvalidMessage>(array).error.code, ErrorCode::InvalidRequest);

  auto scalar_params = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"m","params":3})");
  EXPECT_EQ(std::get<InvalidMessage>(scalar_params).error.code, ErrorCode::InvalidRequest);
}

TEST(ParseMessage, Responses) {
  auto ok = std::get<Response>(parse_message(R"({"jsonrpc":"2.0","id":1,"result":null})"));
  EXPECT_TRUE(ok.result.has_value());
  auto failed = std::get<Response>(
      parse_message(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}})"));
  ASSERT_TRUE(failed.error.has_value());
  EXPECT_EQ(failed.error->code, ErrorCode::MethodNotFound);
}

TEST(ParseMessage, InvalidUtf8IsReplacedNotRejected) {
  std::string body = "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"text\":\"a\xff"
                     "b\"}}";
  auto note = std::get<Notification>(parse_message(body));
  EXPECT_EQ(note.params["text"], "a\xEF\xBF\xBD"
                                 "b");
}

TEST(DumpMessage, NeverThrowsOnInvalidUtf8) {
  Json message = make_notification("m", {{"text", std::string("bad \xC3")}});
  EXPECT_NE(dump_message(message).find("bad"), std::string::npos);
}

TEST(MakeMessages, CarryVersionAndErrorCode) {
  Json error = make_error(RequestId{std::string("x")}, {ErrorCode::ServerNotInitialized, "wait"});
  EXPECT_EQ(error["jsonrpc"], "2.0");
  EXPECT_EQ(error["id"], "x");
  EXPECT_EQ(error["error"]["code"], -32002);
  EXPECT_EQ(make_result(RequestId{std::int64_t{4}}, nullptr)["id"], 4);
}

TEST(DumpResult, WritesTheBytesOfAResultMessage) {
  Json result = {{"isIncomplete", false}, {"items", Json::array()}};
  for (RequestId id : {RequestId{std::int64_t{7}}, RequestId{std::string("a\"b")}, RequestId{}})
    EXPECT_EQ(dump_result(id, result.dump()), dump_message(make_result(id, result)));
}

// params nested `depth` levels: {"jsonrpc":"2.0",<before>"method":"m","params":[[[...]]]<after>}
std::string deeply_nested(std::size_t depth, const std::string& before, const std::string& after) {
  return R"({"jsonrpc":"2.0",)" + before + R"("method":"m","params":)" + std::string(depth, '[') +
         std::string(depth, ']') + after + "}";
}

TEST(ParseMessage, HundredThousandLevelsAreRefusedWithTheDepthAndTheId) {
  // Issue 14: 100,000 levels (200 KB) used to overflow the stack.
  auto message = parse_message(deeply_nested(100'000, R"("id":7,)", ""));
  auto& invalid = std::get<InvalidMessage>(message);
  EXPECT_EQ(invalid.error.code, ErrorCode::InvalidRequest);
  EXPECT_EQ(std::get<std::int64_t>(invalid.id), 7);
  EXPECT_NE(invalid.error.message.find("100001 levels"), std::string::npos)
      << invalid.error.message;
  EXPECT_NE(invalid.error.message.find("limit is 512"), std::string::npos);
}

TEST(ParseMessage, IdAfterTheDeepPartIsStillRead) {
  auto message = parse_message(deeply_nested(5'000, "", R"(,"id":"late")"));
  EXPECT_EQ(std::get<std::string>(std::get<InvalidMessage>(message).id), "late");
  // An "id" key inside the nested part is not the message's id.
  auto inner = parse_message(R"({"jsonrpc":"2.0","method":"m","params":)" + std::string(600, '[') +
                             R"({"id":9})" + std::string(600, ']') + "}");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(std::get<InvalidMessage>(inner).id));
  // A response's id names one of our calls: the error about it must not carry it.
  auto response = parse_message(R"({"jsonrpc":"2.0","id":1,"result":)" + std::string(600, '[') +
                                std::string(600, ']') + "}");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(std::get<InvalidMessage>(response).id));
}

TEST(ParseMessage, DeepAndMalformedIsAParseError) {
  auto message = parse_message(R"({"jsonrpc":"2.0","id":1,"params":)" + std::string(100'000, '{'));
  EXPECT_EQ(std::get<InvalidMessage>(message).error.code, ErrorCode::ParseError);
}

TEST(ParseMessage, NestingUpToTheLimitIsAccepted) {
  // The message object itself is one level: params may nest 511 more.
  auto at_limit = parse_message(deeply_nested(kMaxJsonNesting - 1, R"("id":1,)", ""));
  EXPECT_TRUE(std::holds_alternative<Request>(at_limit));
  auto over = parse_message(deeply_nested(kMaxJsonNesting, R"("id":1,)", ""));
  EXPECT_TRUE(std::holds_alternative<InvalidMessage>(over));
}

TEST(JsonNestingDepth, BracketsInsideStringsDoNotCount) {
  EXPECT_EQ(json_nesting_depth(R"({"a":"[[[{{{","b":[1,{"c":"\"[["}]})"), 3u);
  EXPECT_EQ(json_nesting_depth(R"("\\"[)"), 1u); // an escaped backslash ends no string
  EXPECT_EQ(json_nesting_depth("3"), 0u);
  EXPECT_EQ(json_nesting_depth("]]]["), 1u);
}

} // namespace
} // namespace opscope::protocol
