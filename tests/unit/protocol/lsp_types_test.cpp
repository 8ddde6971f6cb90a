#include "opscope/protocol/lsp_types.h"

#include <gtest/gtest.h>

namespace opscope::protocol {
namespace {

TEST(LspTypes, InitializeParamsReadCapabilitiesTheServerUses) {
  Json j = Json::parse(R"({
    "processId": 12, "rootUri": "file:///w",
    "initializationOptions": {"model": "m.pt2"},
    "capabilities": {
      "general": {"positionEncodings": ["utf-8", "utf-16"]},
      "window": {"workDoneProgress": true},
      "workspace": {"configuration": true,
                    "didChangeWatchedFiles": {"dynamicRegistration": true}}}})");
  auto params = j.get<InitializeParams>();
  EXPECT_EQ(params.process_id, 12);
  EXPECT_EQ(params.root_uri, "file:///w");
  EXPECT_EQ(params.initialization_options["model"], "m.pt2");
  EXPECT_EQ(params.position_encodings, (std::vector<std::string>{"utf-8", "utf-16"}));
  EXPECT_TRUE(params.supports_work_done_progress);
  EXPECT_TRUE(params.supports_configuration);
  EXPECT_TRUE(params.supports_watcher_registration);
}

TEST(LspTypes, MinimalInitializeParams) {
  auto params = Json::parse(R"({"processId": null, "rootUri": null, "capabilities": {}})")
                    .get<InitializeParams>();
  EXPECT_FALSE(params.root_uri.has_value());
  EXPECT_FALSE(params.supports_configuration);
}

TEST(LspTypes, IncrementalAndFullChanges) {
  auto params = Json::parse(R"({"textDocument": {"uri": "file:///a.yaml", "version": 2},
    "contentChanges": [{"range": {"start": {"line": 0, "character": 1},
                                  "end": {"line": 0, "character": 2}}, "text": "x"},
                       {"text": "whole"}]})")
                    .get<DidChangeTextDocumentParams>();
  ASSERT_EQ(params.content_changes.size(), 2u);
  EXPECT_EQ(params.content_changes[0].range->end, (Position{0, 2}));
  EXPECT_FALSE(params.content_changes[1].range.has_value());
}

TEST(LspTypes, MissingFieldThrowsForInvalidParams) {
  EXPECT_THROW(Json::parse(R"({"textDocument": {}})").get<TextDocumentPositionParams>(),
               Json::exception);
}

TEST(LspTypes, CompletionAndDiagnosticsSerialiseAsLspExpects) {
  CompletionList list{true,
                      {{"layer1.0.conv1", CompletionItemKind::Module, "Conv2d", "", "", "",
                        TextEdit{{{1, 2}, {1, 4}}, "layer1\\.0\\.conv1"}}},
                      std::nullopt};
  Json j = list;
  EXPECT_EQ(j["isIncomplete"], true);
  EXPECT_EQ(j["items"][0]["textEdit"]["newText"], "layer1\\.0\\.conv1");
  EXPECT_EQ(j["items"][0]["textEdit"]["range"]["end"]["character"], 4);

  Diagnostic d;
  d.message = "no match";
  d.severity = DiagnosticSeverity::Warning;
  Json dj = d;
  EXPECT_EQ(dj["severity"], 2);
  EXPECT_EQ(dj["source"], "opscope");
  EXPECT_EQ(dj.get<Diagnostic>().message, "no match");
}

// The typing path writes completion replies without a DOM; editors must see the same JSON.
TEST(LspTypes, CompletionTextIsTheSameJsonAsTheDom) {
  CompletionList list{
      false,
      {{"layer1.0.conv1", CompletionItemKind::Module, "Conv2d", "", "000000", "'layer1.0.conv1",
        TextEdit{{{1, 2}, {1, 4}}, "'layer1\\.0\\.conv1'"}},
       {"caf\xC3\xA9 \"x\"", CompletionItemKind::Field, "", "*doc*\n", "", "", std::nullopt},
       {"linear", CompletionItemKind::Enum, "3 ops", "", "000002", "linear",
        TextEdit{{{0, 0}, {12, 40}}, "linear"}}},
      std::nullopt};
  EXPECT_EQ(to_json_text(list).text, Json(list).dump());
  CompletionList empty{true, {}, std::nullopt};
  EXPECT_EQ(to_json_text(empty).text, Json(empty).dump());

  // With itemDefaults.editRange, items on that range carry only their new text.
  list.default_edit_range = Range{{1, 2}, {1, 4}};
  Json with_defaults = Json::parse(to_json_text(list).text);
  EXPECT_EQ(to_json_text(list).text, Json(list).dump());
  EXPECT_EQ(with_defaults["itemDefaults"]["editRange"]["end"]["character"], 4);
  EXPECT_FALSE(with_defaults["items"][0].contains("textEdit"));
  EXPECT_EQ(with_defaults["items"][0]["textEditText"], "'layer1\\.0\\.conv1'");
  EXPECT_EQ(with_defaults["items"][2]["textEdit"]["newText"], "linear"); // another range
}

TEST(LspTypes, HoverTextIsTheSameJsonAsTheDom) {
  Hover with_range{"**layer1\\..\\***: 4 ops\n\n| op | type |\n|---|---|\n| `conv2d` | "
                   "[model.py:12](file:///w/model.py#L12) \"caf\xC3\xA9\"\t\x01 \xFF |",
                   Range{{3, 4}, {3, 14}}};
  // As the DOM path sends it: invalid UTF-8 replaced (dump_message's error handler).
  EXPECT_EQ(to_json_text(with_range).text,
            Json(with_range).dump(-1, ' ', false, Json::error_handler_t::replace));
  Hover without_range{"plain", std::nullopt};
  EXPECT_EQ(to_json_text(without_range).text, Json(without_range).dump());
  EXPECT_EQ(Json::parse(to_json_text(with_range).text)["range"]["start"]["character"], 4);
}

TEST(LspTypes, ItemDefaultsEditRangeIsUsedOnlyWhenTheClientListsIt) {
  auto caps = [](const char* completion) {
    return Json::parse(std::string(R"({"capabilities": {"textDocument": {"completion": )") +
                       completion + "}}}")
        .get<InitializeParams>();
  };
  EXPECT_TRUE(caps(R"({"completionList": {"itemDefaults": ["commitCharacters", "editRange"]}})")
                  .supports_completion_edit_range_default);
  EXPECT_FALSE(caps(R"({"completionList": {"itemDefaults": ["commitCharacters"]}})")
                   .supports_completion_edit_range_default);
  EXPECT_FALSE(caps("{}").supports_completion_edit_range_default);
}

TEST(LspTypes, FileUrisRoundTripWithPercentEncoding) {
  std::string path = "/tmp/my project/quant #1.yaml";
  std::string uri = uri_from_path(path);
  EXPECT_EQ(uri, "file:///tmp/my%20project/quant%20%231.yaml");
  EXPECT_EQ(path_from_uri(uri), path);
  EXPECT_EQ(path_from_uri("file://localhost/etc/x"), "/etc/x");
  EXPECT_FALSE(path_from_uri("untitled:1").has_value());
}

} // namespace
} // namespace opscope::protocol
