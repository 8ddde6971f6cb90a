#include "classify.h"
#include "context_detail.h"
#include "python_reader.h"

namespace opscope::config {

ConfigDocument read_config(std::string text, Format format) {
  ConfigDocument doc;
  doc.format = format;
  doc.text = std::move(text);
  // A lone '\r' ends a line, as in PyYAML and LSP: turned into '\n' (same length, so byte
  // offsets hold) the readers and the protocol count the same lines.
  for (std::size_t i = 0; i < doc.text.size(); ++i)
    if (doc.text[i] == '\r' && (i + 1 == doc.text.size() || doc.text[i + 1] != '\n'))
      doc.text[i] = '\n';
  detail::SourceText source(doc.text);
  if (format == Format::Python) {
    detail::PythonRead read = detail::scan_python(source);
    doc.problems = std::move(read.tree.problems);
    doc.unchecked = std::move(read.unchecked);
    doc.config_lines = std::move(read.config_lines);
    detail::classify(*read.tree.root, doc, nullptr);
    // Each config call is its own mapping: the root's repeated keys are not duplicates.
    for (const detail::Entry& e : read.tree.root->entries)
      if (e.value)
        detail::find_duplicates(*e.value, doc.duplicates);
    doc.tree = std::make_shared<const detail::Tree>(std::move(read.tree));
    return doc;
  }
  detail::Tree tree =
      format == Format::Json ? detail::scan_json(source) : detail::scan_yaml(source);
  doc.problems = std::move(tree.problems);
  detail::classify(*tree.root, doc, nullptr); // may add an alias-expansion problem
  detail::find_duplicates(*tree.root, doc.duplicates);
  doc.tree = std::make_shared<const detail::Tree>(std::move(tree));
  return doc;
}

Tree scan_config_tree(std::string_view text, Format format) {
  if (format == Format::Python)
    return detail::scan_python(detail::SourceText(text)).tree;
  return scan_tree(text, format);
}

Tree scan_marked(const ConfigDocument& document, Position& cursor, std::string_view marker) {
  detail::SourceText source(document.text);
  std::size_t offset = source.offset(cursor);
  cursor = source.position(offset);
  if (document.format == Format::Python)
    return detail::python_scan_marked(document.text, offset, marker);
  std::string marked = document.text;
  marked.insert(offset, marker);
  return scan_config_tree(marked, document.format);
}

} // namespace opscope::config
