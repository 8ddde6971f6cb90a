#include "documents.h"

#include <gtest/gtest.h>

namespace opscope::lsp {
namespace {

using protocol::PositionEncoding;
using protocol::TextDocumentContentChangeEvent;

TextDocumentContentChangeEvent edit(int l1, int c1, int l2, int c2, std::string text) {
  return {protocol::Range{{l1, c1}, {l2, c2}}, std::move(text)};
}

TEST(ApplyChange, IncrementalEditsInUtf16Units) {
  std::string text = "a: \xF0\x9F\x98\x80x\nb: 1\n"; // emoji = 2 UTF-16 units
  apply_change(text, edit(0, 5, 0, 6, "y"), PositionEncoding::Utf16);
  EXPECT_EQ(text, "a: \xF0\x9F\x98\x80y\nb: 1\n");
  apply_change(text, edit(1, 3, 1, 4, "22"), PositionEncoding::Utf16);
  EXPECT_EQ(text, "a: \xF0\x9F\x98\x80y\nb: 22\n");
}

TEST(ApplyChange, InsertDeleteAcrossLinesAndFullReplace) {
  std::string text = "one\ntwo\nthree";
  apply_change(text, edit(0, 3, 2, 0, " "), PositionEncoding::Utf16);
  EXPECT_EQ(text, "one three");
  apply_change(text, edit(5, 0, 5, 0, "!"), PositionEncoding::Utf16); // past the end: appends
  EXPECT_EQ(text, "one three!");
  apply_change(text, {std::nullopt, "new"}, PositionEncoding::Utf16);
  EXPECT_EQ(text, "new");
}

TEST(DocumentStore, TracksVersionsAndIgnoresUnknownDocuments) {
  DocumentStore store;
  store.open({"file:///w/q.yaml", "yaml", 1, "a"});
  EXPECT_EQ(store.find("file:///w/q.yaml")->path, "/w/q.yaml");
  protocol::DidChangeTextDocumentParams change{{"file:///w/q.yaml", 4}, {{std::nullopt, "b"}}};
  EXPECT_TRUE(store.change(change, PositionEncoding::Utf16));
  EXPECT_EQ(store.find("file:///w/q.yaml")->version, 4);
  EXPECT_EQ(store.find("file:///w/q.yaml")->text, "b");
  change.text_document.uri = "file:///other.yaml";
  EXPECT_FALSE(store.change(change, PositionEncoding::Utf16));
  store.close("file:///w/q.yaml");
  EXPECT_EQ(store.find("file:///w/q.yaml"), nullptr);
}

} // namespace
} // namespace opscope::lsp
