#include "resolution.h"

namespace opscope::features::detail {

std::shared_ptr<const resolve::Resolution> resolution_of(const config::ConfigDocument& document,
                                                         const Model* model) {
  if (!model || !model->index || model->compressor != index::Compressor::Quantizer ||
      !resolve::resolves_in_graph_mode(document, *model->index))
    return nullptr;
  if (model->resolution)
    return model->resolution->get(document, *model->index, model->queries);
  return std::make_shared<const resolve::Resolution>(
      resolve::resolve_quantizer(document, *model->index, model->queries));
}

std::shared_ptr<const resolve::Resolution>
resolution_if_ready(const config::ConfigDocument& document, const Model* model) {
  if (model && model->resolution && model->index &&
      model->compressor == index::Compressor::Quantizer &&
      resolve::resolves_in_graph_mode(document, *model->index))
    return model->resolution->ready();
  return resolution_of(document, model);
}

} // namespace opscope::features::detail
