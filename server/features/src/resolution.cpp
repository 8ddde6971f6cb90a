#include "resolution.h"

#include "opscope/config/values.h"
#include "opscope/resolve/pruner.h"

namespace opscope::features::detail {
namespace {

// The graph Quantizer and the (eager) pruner have a resolution; the other compressors and
// modes do not yet.
bool resolvable(const config::ConfigDocument& document, const Model* model) {
  if (!model || !model->index)
    return false;
  if (model->compressor == index::Compressor::MagnitudePruner)
    return resolve::resolves_pruning(document, *model->index);
  return model->compressor == index::Compressor::Quantizer &&
         resolve::resolves_in_graph_mode(document, *model->index);
}

} // namespace

std::shared_ptr<const resolve::Resolution> resolution_of(const config::ConfigDocument& document,
                                                         const Model* model) {
  if (!resolvable(document, model))
    return nullptr;
  if (model->resolution)
    return model->resolution->get(document, *model->index, model->queries);
  return std::make_shared<const resolve::Resolution>(
      resolve::resolves_pruning(document, *model->index)
          ? resolve::resolve_pruner(document, *model->index, model->queries)
          : resolve::resolve_quantizer(document, *model->index, model->queries));
}

std::shared_ptr<const resolve::Resolution>
resolution_if_ready(const config::ConfigDocument& document, const Model* model) {
  if (model && model->resolution && resolvable(document, model))
    return model->resolution->ready();
  return resolution_of(document, model);
}

std::shared_ptr<const resolve::EagerWeights>
eager_weights_if_ready(const config::ConfigDocument& document, const Model* model) {
  if (!model || !model->index || !resolve::resolves_eager_weights(document, *model->index))
    return nullptr;
  if (model->resolution)
    return model->resolution->weights_if_ready();
  auto values = config::read_values(document.text, document.format);
  if (!values)
    return nullptr;
  return std::make_shared<const resolve::EagerWeights>(
      resolve::resolve_eager_weights(document, *values, *model->index));
}

} // namespace opscope::features::detail
