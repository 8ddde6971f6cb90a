// One revision of a coreai-opt config, and what it shares with its session: the patterns its
// checks compiled (held while the file is open) and the resolution of each op.
#pragma once

#include "opscope/dialects/coreai/dialect.h"
#include "opscope/index/query.h"

#include <memory>
#include <mutex>

namespace opscope::dialects::coreai {

// The compiled patterns a file's last check used, held in its model's QueryEngine while the
// file is open: the next check finds them compiled, and they are freed when it closes.
class HeldPatterns {
public:
  // Holds `hold` instead (the one it replaces lets its patterns go, once no lock is held).
  void replace(index::QueryEngine::Hold hold) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::swap(hold_, hold);
  }

private:
  std::mutex mutex_; // a check on the background thread and a code action may both replace it
  index::QueryEngine::Hold hold_;
};

// Which entry decides each op, one per revision and model, shared by the revision's check and
// requests (~20 M instructions to free for 50,000 keys: the session hands it to the host).
class Decisions {
public:
  explicit Decisions(bool kept) : kept_(kept) {}
  std::shared_ptr<const resolve::SharedResolution>
  for_index(const std::shared_ptr<const index::Index>& index);
  bool kept() const { return kept_; }

private:
  // An open file's: the check also computes the projected size for the hovers and lenses that
  // follow. False for a text read from disk (`check`), which nothing asks about later.
  const bool kept_;
  std::mutex mutex_;
  std::shared_ptr<const resolve::SharedResolution> decisions_;
  std::weak_ptr<const index::Index> resolved_index_;
};

struct DocumentParts {
  std::shared_ptr<const config::ConfigDocument> config;
  bool named_as_config = false;
  std::shared_ptr<Decisions> decisions;
  std::shared_ptr<HeldPatterns> held; // null for a text read from disk
};

std::shared_ptr<const Document> make_document(DocumentParts parts);

} // namespace opscope::dialects::coreai
