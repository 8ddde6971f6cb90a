// The open documents, as the client last sent them.
#pragma once

#include "opscope/protocol/lsp_types.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace opscope::lsp {

struct Document {
  std::string uri;
  std::string path; // local path, empty for non-file URIs
  std::string language_id;
  int version = 0;
  std::string text;
  std::uint64_t revision = 0; // unique per text the store has held; 0: not from the store
};

class DocumentStore {
public:
  void open(const protocol::TextDocumentItem& item);
  // Applies full and incremental changes in order (positions in `encoding`).
  // Returns false when the document is not open.
  bool change(const protocol::DidChangeTextDocumentParams& params,
              protocol::PositionEncoding encoding);
  void close(const std::string& uri);
  const Document* find(const std::string& uri) const;
  const std::map<std::string, Document>& all() const { return documents_; }

private:
  std::map<std::string, Document> documents_;
  std::uint64_t next_revision_ = 1;
};

// Applies one change event to `text`.
void apply_change(std::string& text, const protocol::TextDocumentContentChangeEvent& change,
                  protocol::PositionEncoding encoding);

} // namespace opscope::lsp
