#include "documents.h"

#include "opscope/protocol/utf8.h"

#include <algorithm>

namespace opscope::lsp {

void apply_change(std::string& text, protocol::LineTable& lines,
                  const protocol::TextDocumentContentChangeEvent& change,
                  protocol::PositionEncoding encoding) {
  if (!change.range) {
    text = change.text;
    lines = protocol::LineTable(text);
    return;
  }
  std::size_t start = lines.offset_at(change.range->start, encoding);
  std::size_t end = lines.offset_at(change.range->end, encoding);
  if (end < start)
    std::swap(start, end); // a reversed range from a confused client: still one edit
  text.replace(start, end - start, change.text);
  lines.edited(start, end, change.text.size(), text);
}

void apply_change(std::string& text, const protocol::TextDocumentContentChangeEvent& change,
                  protocol::PositionEncoding encoding) {
  protocol::LineTable lines(text);
  apply_change(text, lines, change, encoding);
}

std::optional<std::string> DocumentStore::open(const protocol::TextDocumentItem& item) {
  auto existing = documents_.find(item.uri);
  std::size_t replaced = existing == documents_.end() ? 0 : existing->second.text.size();
  if (existing == documents_.end() && documents_.size() >= limits_.max_documents)
    return "cannot open " + item.uri + ": " + std::to_string(documents_.size()) +
           " documents are open, the limit; close some";
  if (total_bytes_ - replaced + item.text.size() > limits_.max_total_bytes)
    return over_limit_message(item.uri, item.text.size());
  total_bytes_ = total_bytes_ - replaced + item.text.size();
  Document doc;
  doc.uri = item.uri;
  doc.path = protocol::path_from_uri(item.uri).value_or("");
  doc.language_id = item.language_id;
  doc.version = item.version;
  doc.text = item.text;
  doc.revision = next_revision_++;
  const std::string& text = (documents_[item.uri] = std::move(doc)).text;
  lines_.insert_or_assign(item.uri, protocol::LineTable(text));
  return std::nullopt;
}

std::string DocumentStore::over_limit_message(const std::string& uri, std::size_t bytes) const {
  return "cannot hold " + uri + " (" + std::to_string(bytes) + " bytes): open documents may " +
         "hold " + std::to_string(limits_.max_total_bytes >> 20) + " MB in all, and " +
         std::to_string(total_bytes_ >> 20) + " MB are open; close some documents";
}

DocumentStore::Change DocumentStore::change(const protocol::DidChangeTextDocumentParams& params,
                                            protocol::PositionEncoding encoding) {
  auto it = documents_.find(params.text_document.uri);
  if (it == documents_.end())
    return Change::NotOpen;
  std::string& text = it->second.text;
  protocol::LineTable& lines = lines_.at(params.text_document.uri);
  std::size_t before = text.size();
  for (const auto& change : params.content_changes) {
    apply_change(text, lines, change, encoding);
    if (total_bytes_ - before + text.size() > limits_.max_total_bytes) {
      total_bytes_ -= before;
      lines_.erase(it->first);
      documents_.erase(it);
      return Change::OverLimit;
    }
  }
  total_bytes_ = total_bytes_ - before + text.size();
  it->second.revision = next_revision_++;
  if (params.text_document.version)
    it->second.version = *params.text_document.version;
  return Change::Applied;
}

void DocumentStore::close(const std::string& uri) {
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return;
  total_bytes_ -= it->second.text.size();
  lines_.erase(uri);
  documents_.erase(it);
}

const Document* DocumentStore::find(const std::string& uri) const {
  auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : &it->second;
}

} // namespace opscope::lsp
