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
  EXPECT_EQ(store.change(change, PositionEncoding::Utf16), DocumentStore::Change::Applied);
  EXPECT_EQ(store.find("file:///w/q.yaml")->version, 4);
  EXPECT_EQ(store.find("file:///w/q.yaml")->text, "b");
  change.text_document.uri = "file:///other.yaml";
  EXPECT_EQ(store.change(change, PositionEncoding::Utf16), DocumentStore::Change::NotOpen);
  store.close("file:///w/q.yaml");
  EXPECT_EQ(store.find("file:///w/q.yaml"), nullptr);
}

TEST(DocumentStore, RefusesDocumentsPastTheCountAndByteLimits) {
  DocumentStore store(DocumentLimits{/*max_documents=*/2, /*max_total_bytes=*/10});
  EXPECT_EQ(store.open({"file:///a.yaml", "yaml", 1, "aaaa"}), std::nullopt);
  EXPECT_EQ(store.open({"file:///b.yaml", "yaml", 1, "bbbb"}), std::nullopt);
  auto third = store.open({"file:///c.yaml", "yaml", 1, ""});
  ASSERT_TRUE(third);
  EXPECT_NE(third->find("2 documents are open"), std::string::npos) << *third;
  EXPECT_EQ(store.find("file:///c.yaml"), nullptr);
  // Reopening counts the new text instead of the old one.
  EXPECT_EQ(store.open({"file:///a.yaml", "yaml", 2, "aaaaaa"}), std::nullopt);
  EXPECT_EQ(store.total_bytes(), 10u);
  auto too_big = store.open({"file:///a.yaml", "yaml", 3, "aaaaaaa"});
  ASSERT_TRUE(too_big);
  EXPECT_NE(too_big->find("close some documents"), std::string::npos);
  EXPECT_EQ(store.find("file:///a.yaml")->text, "aaaaaa");
  // A change that grows past the limit closes the document; the bytes are freed.
  protocol::DidChangeTextDocumentParams grow{{"file:///b.yaml", 2}, {{std::nullopt, "bbbbb"}}};
  EXPECT_EQ(store.change(grow, PositionEncoding::Utf16), DocumentStore::Change::OverLimit);
  EXPECT_EQ(store.find("file:///b.yaml"), nullptr);
  EXPECT_EQ(store.total_bytes(), 6u);
  store.close("file:///a.yaml");
  EXPECT_EQ(store.total_bytes(), 0u);
  EXPECT_EQ(store.open({"file:///c.yaml", "yaml", 1, "c"}), std::nullopt);
}

} // namespace
} // namespace opscope::lsp
