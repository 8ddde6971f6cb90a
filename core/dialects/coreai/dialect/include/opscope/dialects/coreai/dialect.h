// coreai-opt as a dialect: its YAML, JSON and Python configs (core/config reads them), answered
// by its features (core/dialects/coreai/features) with its resolution and schema. Registered
// last: it reads every file no other dialect recognises, and finds a config in those with a
// root key coreai-opt loads (or that the user named as configs).
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/dialects/dialect.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"

#include <memory>

namespace opscope::dialects::coreai {

const Dialect& dialect();

// What the faces that are coreai-opt's own read beyond the interface: `explain`'s table and
// treemap, the weight-error worker and the proposals (they run LibTorch workers the dialect
// folder cannot reach).
class Document : public DialectDocument {
public:
  virtual const config::ConfigDocument& config() const = 0;
  virtual std::shared_ptr<const config::ConfigDocument> shared_config() const = 0;
  // Which entry decides each op of `index`: once per (revision, index) for an open file,
  // shared by its check, hovers and the weight error.
  virtual std::shared_ptr<const resolve::SharedResolution>
  decisions(const std::shared_ptr<const index::Index>& index) const = 0;
};

// `document` as coreai-opt's, or null when another dialect read it.
const Document* document_of(const DialectDocument* document);

// Has a root key, module or op tables, or a spec section: a file that is a config even when
// half-written (`check` says so of a file it was named that holds none).
bool holds_a_config(const config::ConfigDocument& config);

} // namespace opscope::dialects::coreai
