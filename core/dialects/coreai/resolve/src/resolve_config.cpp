// The one place that picks a config's resolution: the graph Quantizer's (resolve.cpp) or the
// eager ops' (pruner.cpp, built on the graph one's module level). Kept apart so resolve.cpp
// depends on neither eager file and pruner.cpp depends on resolve.cpp only one way.
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/pruner.h"
#include "opscope/resolve/resolve.h"

#include <memory>
#include <mutex>

namespace opscope::resolve {

using config::ConfigDocument;

bool resolves(const ConfigDocument& document, const index::Index& index) {
  return resolves_in_graph_mode(document, index) || resolves_eager_weights(document, index);
}

Resolution resolve_config(const ConfigDocument& document, const index::Index& index,
                          const index::QueryEngine* engine, int object) {
  return resolves_eager_weights(document, index)
             ? resolve_eager_ops(document, index, engine, object)
             : resolve_quantizer(document, index, engine, object);
}

std::shared_ptr<const Resolution> SharedResolution::ready() const {
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  return lock.owns_lock() ? value_ : nullptr;
}

std::shared_ptr<const Resolution> SharedResolution::get(const ConfigDocument& document,
                                                        const index::Index& index,
                                                        const index::QueryEngine* engine) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!value_)
    value_ = std::make_shared<const Resolution>(resolve_config(document, index, engine));
  return value_;
}

} // namespace opscope::resolve
