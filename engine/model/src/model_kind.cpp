#include "opscope/model/model_kind.h"

#include "opscope/index/serialize.h"
#include "opscope/support/regular_file.h"

#include <fstream>

namespace opscope::model {

std::optional<ModelKind> kind_of_file(const std::string& path) {
  if (support::regular_file_problem(path))
    return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  char head[4] = {};
  if (in.read(head, sizeof head) && std::string(head, sizeof head) == std::string("PK\x03\x04", 4))
    return ModelKind::Archive;
  if (index::looks_like_index_file(path))
    return ModelKind::IndexFile;
  return std::nullopt;
}

bool looks_like_python_target(const std::string& model) {
  auto colon = model.rfind(':');
  return colon != std::string::npos && colon > 0 && colon + 1 < model.size();
}

ModelKind model_kind(const std::string& model) {
  if (auto kind = kind_of_file(model))
    return *kind;
  if (!support::regular_file_problem(model))
    return model.ends_with(".json") ? ModelKind::IndexFile : ModelKind::Archive;
  if (looks_like_python_target(model))
    return ModelKind::PythonTarget;
  return model.ends_with(".json") ? ModelKind::IndexFile : ModelKind::Archive;
}

} // namespace opscope::model
