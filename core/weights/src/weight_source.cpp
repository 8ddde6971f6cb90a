#include "weight_source.h"

#include <filesystem>
#include <fstream>

namespace opscope::weights {
namespace {

// A .pt2 archive is a zip: its first local file header starts "PK\3\4".
bool is_zip(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return false;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
}

std::optional<c10::ScalarType> scalar_type(const std::string& dtype) {
  if (dtype == "F64")
    return c10::ScalarType::Double;
  if (dtype == "F32")
    return c10::ScalarType::Float;
  if (dtype == "F16")
    return c10::ScalarType::Half;
  if (dtype == "BF16")
    return c10::ScalarType::BFloat16;
  if (dtype == "I64")
    return c10::ScalarType::Long;
  if (dtype == "I32")
    return c10::ScalarType::Int;
  if (dtype == "I16")
    return c10::ScalarType::Short;
  if (dtype == "I8")
    return c10::ScalarType::Char;
  if (dtype == "U8")
    return c10::ScalarType::Byte;
  if (dtype == "BOOL")
    return c10::ScalarType::Bool;
  return std::nullopt;
}

std::string shape_text(c10::IntArrayRef shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

} // namespace

WeightSource::WeightSource(const std::string& path) {
  if (is_zip(path))
    archive_ = std::make_unique<WeightRecords>(path);
  else
    checkpoint_ = std::make_unique<SafetensorsCheckpoint>(path);
}

bool WeightSource::weightless() const {
  return archive_ && archive_->weightless();
}

torch::Tensor WeightSource::read(const std::string& name, const std::vector<std::string>& aliases,
                                 const std::vector<std::int64_t>& shape) const {
  torch::Tensor tensor;
  std::string stored_as = name;
  if (archive_) {
    tensor = archive_->read(name);
  } else {
    const CheckpointTensor found = checkpoint_->find(name, aliases);
    stored_as = found.name + " in " + found.file;
    const std::optional<c10::ScalarType> dtype = scalar_type(found.tensor.dtype);
    if (!dtype)
      throw WeightError("'" + found.name + "' in " + found.file + " is " + found.tensor.dtype +
                        ", which this worker does not read");
    const auto options = torch::TensorOptions().dtype(*dtype);
    std::shared_ptr<const MappedBytes> bytes = checkpoint_->map(found);
    if (bytes->size() == 0)
      return torch::empty(found.tensor.shape, options);
    void* data = const_cast<void*>(bytes->data());
    tensor = torch::from_blob(
        data, found.tensor.shape, [bytes](void*) mutable { bytes.reset(); }, options);
    // safetensors keeps the data aligned in practice; a file that does not gets a copy.
    if (reinterpret_cast<std::uintptr_t>(data) % c10::elementSize(*dtype) != 0)
      tensor = tensor.clone();
  }
  if (!shape.empty() && tensor.sizes() != c10::IntArrayRef(shape))
    throw WeightError("'" + stored_as + "' has shape " + shape_text(tensor.sizes()) +
                      ", the model's '" + name + "' " + shape_text(shape) +
                      ": the weights are not this model's (check `weights:` in opscope.yaml)");
  return tensor;
}

} // namespace opscope::weights
