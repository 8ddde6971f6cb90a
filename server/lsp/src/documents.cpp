#include "documents.h"

#include "opscope/protocol/utf8.h"

#include <algorithm>

namespace opscope::lsp {

void apply_change(std::string& text, const protocol::TextDocumentContentChangeEvent& change,
                  protocol::PositionEncoding encoding) {
  if (!change.range) {
    text = change.text;
    return;
  }
  protocol::LineTable lines(text);
  std::size_t start = lines.offset_at(change.range->start, encoding);
  std::size_t end = lines.offset_at(change.range->end, encoding);
  if (end < start)
    std::swap(start, end); // a reversed range from a confused client: still one edit
  text.replace(start, end - start, change.text);
}

void DocumentStore::open(const protocol::TextDocumentItem& item) {
  Document doc;
  doc.uri = item.uri;
  doc.path = protocol::path_from_uri(item.uri).value_or("");
  doc.language_id = item.language_id;
  doc.version = item.version;
  doc.text = item.text;
  doc.revision = next_revision_++;
  documents_[item.uri] = std::move(doc);
}

bool DocumentStore::change(const protocol::DidChangeTextDocumentParams& params,
                           protocol::PositionEncoding encoding) {
  auto it = documents_.find(params.text_document.uri);
  if (it == documents_.end())
    return false;
  for (const auto& change : params.content_changes)
    apply_change(it->second.text, change, encoding);
  it->second.revision = next_revision_++;
  if (params.text_document.version)
    it->second.version = *params.text_document.version;
  return true;
}

void DocumentStore::close(const std::string& uri) {
  documents_.erase(uri);
}

const Document* DocumentStore::find(const std::string& uri) const {
  auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : &it->second;
}

} // namespace opscope::lsp
