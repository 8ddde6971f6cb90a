#include "resolution.h"

#include "opscope/coreai/compressors.h"
#include "opscope/coreai/config/values.h"

namespace opscope::features::detail {
namespace {

// The config of the model's compressor, in a mode opscope resolves (resolve::resolves).
bool resolvable(const config::ConfigDocument& document, const Model* model) {
  return model && model->index && model->compressor == document.root &&
         resolve::resolves(document, *model->index);
}

} // namespace

ResolutionWords resolution_words(const index::Index& index, index::Compressor compressor) {
  const coreai::CompressorInfo* info = coreai::find(compressor);
  if (!info) // no compressor: the Quantizer's words
    info = coreai::find(index::Compressor::Quantizer);
  const std::string name(info->class_name);
  const std::string verb(info->verb);
  if (info->weight_only) {
    // Their registries (pruning/ and palettization/kmeans/supported_ops_registry.py).
    const std::string weight_ops = " (linear, conv, multi-head attention)";
    return {"eager mode", "the " + name + " " + verb, "configured by the " + name,
            "the " + name + " " + verb, weight_ops};
  }
  if (index.mode == index::Mode::Eager)
    return {"eager mode", "the eager " + name + " " + verb, "configured by the eager " + name,
            "the eager " + name + " " + verb, ""};
  return {"graph mode", "the " + name + " annotates", "annotated by the " + name,
          "the " + name + " compresses", ""};
}

std::string entry_name(const config::ConfigDocument& document, const resolve::Decider& who) {
  if (who.kind == resolve::Decider::Kind::DefaultGlobal)
    return "coreai-opt's default global_config";
  return "`" + resolve::decider_path(document, who).back() + "` (line " +
         std::to_string(resolve::decider_line(document, who) + 1) + ")";
}

std::shared_ptr<const resolve::Resolution> resolution_of(const config::ConfigDocument& document,
                                                         const Model* model, int object) {
  if (!resolvable(document, model))
    return nullptr;
  if (model->resolution && object == 0)
    return model->resolution->get(document, *model->index, model->queries);
  return std::make_shared<const resolve::Resolution>(
      resolve::resolve_config(document, *model->index, model->queries, object));
}

std::shared_ptr<const resolve::Resolution>
resolution_if_ready(const config::ConfigDocument& document, const Model* model, int object) {
  if (model && model->resolution && resolvable(document, model) && object == 0)
    return model->resolution->ready();
  return resolution_of(document, model, object);
}

std::shared_ptr<const resolve::EagerWeights>
eager_weights_if_ready(const config::ConfigDocument& document, const Model* model) {
  if (!model || !model->index || !resolve::resolves_eager_weights(document, *model->index))
    return nullptr;
  if (model->resolution)
    return model->resolution->weights_if_ready();
  auto values = config::read_values(document);
  if (!values)
    return nullptr;
  return std::make_shared<const resolve::EagerWeights>(
      resolve::resolve_eager_weights(document, *values, *model->index));
}

} // namespace opscope::features::detail
