#include "opscope/protocol/lsp_types.h"
#include "opscope/protocol/method_table.h"

#include <gtest/gtest.h>

namespace opscope::protocol {
namespace {

struct Captured {
  std::optional<Json> result;
  std::optional<RpcError> error;
};

Reply capture(Captured& out) {
  return Reply([&out](protocol::Outcome v) {
    if (auto* j = std::get_if<Json>(&v))
      out.result = *j;
    else if (auto* text = std::get_if<JsonText>(&v))
      out.result = Json::parse(text->text);
    else
      out.error = std::get<RpcError>(v);
  });
}

TEST(MethodTable, DispatchesTypedParams) {
  MethodTable table;
  table.request<TextDocumentPositionParams>("textDocument/hover", [](const auto& p, Reply r) {
    r.result(p.text_document.uri + ":" + std::to_string(p.position.line));
  });
  Captured out;
  table.call("textDocument/hover",
             Json::parse(R"({"textDocument":{"uri":"u"},"position":{"line":3,"character":0}})"),
             capture(out));
  EXPECT_EQ(out.result, Json("u:3"));
}

TEST(MethodTable, UnknownMethodAndBadParamsAreStandardErrors) {
  MethodTable table;
  table.request<TextDocumentPositionParams>("textDocument/hover",
                                            [](const auto&, Reply r) { r.result(nullptr); });
  Captured missing;
  table.call("textDocument/nope", Json::object(), capture(missing));
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(missing.error->code, ErrorCode::MethodNotFound);

  Captured bad;
  table.call("textDocument/hover", Json::parse(R"({"textDocument":{"uri":1}})"), capture(bad));
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->code, ErrorCode::InvalidParams);
  EXPECT_NE(bad.error->message.find("invalid params"), std::string::npos);
}

TEST(MethodTable, NotificationsReportProblemsForTheLog) {
  MethodTable table;
  int opened = 0;
  table.notification<DidOpenTextDocumentParams>("textDocument/didOpen",
                                                [&](const auto&) { ++opened; });
  EXPECT_FALSE(table.notify("textDocument/didOpen",
                            Json::parse(R"({"textDocument":{"uri":"u","text":""}})")));
  EXPECT_EQ(opened, 1);
  EXPECT_TRUE(table.notify("textDocument/didOpen", Json::object()));
  EXPECT_TRUE(table.notify("custom/unknown", nullptr));
  EXPECT_EQ(opened, 1);
}

TEST(MethodTable, CommandsAreBoundLikeRequests) {
  MethodTable table;
  table.command<int>("opscope.echo", [](int a, Reply r) { r.result(a); });
  table.command<Json>("opscope.none", [](const Json& a, Reply r) { r.result(a.is_null()); });
  EXPECT_EQ(table.command_names(), (std::vector<std::string>{"opscope.echo", "opscope.none"}));

  Captured echoed;
  table.execute("opscope.echo", Json::parse(R"([42, "more"])"), capture(echoed));
  EXPECT_EQ(echoed.result, Json(42)); // the first argument, typed
  Captured none;
  table.execute("opscope.none", nullptr, capture(none));
  EXPECT_EQ(none.result, Json(true));

  Captured bad;
  table.execute("opscope.echo", Json::parse(R"(["file:///c.yaml"])"), capture(bad));
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->code, ErrorCode::InvalidParams);
  Captured unknown;
  table.execute("opscope.nope", Json::array(), capture(unknown));
  ASSERT_TRUE(unknown.error);
  EXPECT_EQ(unknown.error->code, ErrorCode::InvalidParams);
  EXPECT_EQ(unknown.error->message,
            "unknown command opscope.nope (expected opscope.echo or opscope.none)");
}

TEST(MethodTable, ReplyIsSentOnlyOnce) {
  int sent = 0;
  Reply reply([&](protocol::Outcome) { ++sent; });
  Reply copy = reply;
  reply.result(1);
  copy.error(ErrorCode::RequestCancelled, "late");
  EXPECT_EQ(sent, 1);
  EXPECT_TRUE(copy.sent());
}

} // namespace
} // namespace opscope::protocol
