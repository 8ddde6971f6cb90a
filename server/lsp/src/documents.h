// The open documents, as the client last sent them.
#pragma once

#include "opscope/protocol/lsp_types.h"
#include "opscope/workspace/workspace.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace opscope::lsp {

using workspace::Document;

// What clients may keep open at once. A client (or an attacker) that opens
// documents and never closes them gets errors, not an ever-growing server.
struct DocumentLimits {
  std::size_t max_documents = 1000;
  std::size_t max_total_bytes = std::size_t{64} << 20; // a 10 MB config fits, several times
};

class DocumentStore {
public:
  explicit DocumentStore(DocumentLimits limits = {}) : limits_(limits) {}

  // Opens (or reopens) a document; a message saying which limit it would
  // pass when refused, the store then unchanged.
  std::optional<std::string> open(const protocol::TextDocumentItem& item);
  enum class Change { Applied, NotOpen, OverLimit };
  // Applies full and incremental changes in order (positions in `encoding`).
  // OverLimit: the text grew past the limit, so the document was closed (a
  // text the server cannot hold is better dropped than kept wrong).
  Change change(const protocol::DidChangeTextDocumentParams& params,
                protocol::PositionEncoding encoding);
  void close(const std::string& uri);
  std::size_t total_bytes() const { return total_bytes_; }
  const DocumentLimits& limits() const { return limits_; }
  // Why a text of `bytes` more cannot be held (for messages).
  std::string over_limit_message(const std::string& uri, std::size_t bytes) const;
  const Document* find(const std::string& uri) const;
  // The line starts of an open document's text, kept across its edits: every change and
  // every request converts positions, and a 50,000-key config has 100,000 lines.
  const protocol::LineTable& lines(const Document& doc) const { return lines_.at(doc.uri); }
  const std::map<std::string, Document>& all() const { return documents_; }

private:
  DocumentLimits limits_;
  std::size_t total_bytes_ = 0;
  std::map<std::string, Document> documents_;
  std::map<std::string, protocol::LineTable> lines_; // of documents_' texts, by URI
  std::uint64_t next_revision_ = 1;
};

// Applies one change event to `text`, and to `lines`, the line table of `text`.
void apply_change(std::string& text, protocol::LineTable& lines,
                  const protocol::TextDocumentContentChangeEvent& change,
                  protocol::PositionEncoding encoding);
void apply_change(std::string& text, const protocol::TextDocumentContentChangeEvent& change,
                  protocol::PositionEncoding encoding);

} // namespace opscope::lsp
