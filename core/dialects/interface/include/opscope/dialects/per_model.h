// What a dialect derives from a model alone (every name completion can offer, say) and keeps
// between keystrokes. Each revision of a file is a new DialectDocument, so a document's own
// cache starts empty on the keystroke a completion follows: what depends only on the model is
// kept by the dialect instead, for the few models asked about last, keyed by the model's
// content (a model reloaded at the address of another is never answered with its names).
#pragma once

#include "opscope/index/index.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opscope::dialects {

// The archive's content hash where the index has one, else the names, classes and shapes.
inline std::uint64_t model_fingerprint(const index::Index& model) {
  std::uint64_t h = 1469598103934665603ull; // FNV-1a
  auto mix = [&h](std::string_view bytes) {
    for (unsigned char c : bytes)
      h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull; // a separator: ("ab", "c") is not ("a", "bc")
  };
  const auto& modules = model.named_modules();
  mix(std::to_string(modules.size()) + "/" + std::to_string(model.parameters.size()));
  if (!model.provenance.archive_hash.empty()) {
    mix(model.provenance.archive_hash);
    return h;
  }
  for (const index::ModuleObject& m : modules) {
    mix(m.name);
    mix(m.type);
    mix(std::to_string(m.mro.size() + 2 * m.aliases.size()) + (m.output_embeddings ? "h" : "") +
        (m.experts_implementation
             ? std::string("e") + (m.experts_implementation->transposed ? "t" : "") +
                   (m.experts_implementation->gated ? "g" : "")
             : ""));
  }
  for (const index::Parameter& p : model.parameters) {
    mix(p.name);
    for (std::int64_t d : p.shape)
      mix(std::to_string(d));
  }
  return h;
}

// A `T` per model, built on first use and kept for the `models` models used last (an editor
// has one or two open; a model no longer asked about is dropped when others push it out).
// Thread-safe: the background check and the requests share it; two first uses may both build,
// the first is kept.
template <class T> class PerModel {
public:
  explicit PerModel(std::size_t models = 2) : models_(models) {}

  // `build()` returns the T of `model`.
  template <class Build>
  std::shared_ptr<const T> get(const index::Index& model, Build build) const {
    return kept(model, [&] { return std::make_shared<const T>(build()); });
  }
  // A T made empty for `model` (a memo that fills as it is used: its own mutable state).
  std::shared_ptr<const T> get(const index::Index& model) const {
    return kept(model, [] { return std::make_shared<const T>(); });
  }

private:
  template <class Make> std::shared_ptr<const T> kept(const index::Index& model, Make make) const {
    std::uint64_t key = model_fingerprint(model);
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < kept_.size(); ++i)
        if (kept_[i].first == key) {
          std::rotate(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(i),
                      kept_.begin() + static_cast<std::ptrdiff_t>(i) + 1); // used last: first
          return kept_.front().second;
        }
    }
    std::shared_ptr<const T> made = make();
    std::lock_guard lock(mutex_);
    for (const auto& [k, other] : kept_)
      if (k == key)
        return other; // built meanwhile by another thread
    kept_.insert(kept_.begin(), {key, made});
    if (kept_.size() > models_)
      kept_.resize(models_);
    return made;
  }

  std::size_t models_;
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<std::uint64_t, std::shared_ptr<const T>>> kept_; // last first
};

} // namespace opscope::dialects
